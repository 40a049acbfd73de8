// content-api serve: live reload for the preview. Added by the server to the pages it sends;
// never part of the output folder. Follows /__events (Server-Sent Events):
// - on the landing page, swaps in a fresh copy of the page after every event;
// - on any other page, reloads when the page's own file, or a URL the page read, changed (after
//   refreshing the browser's cached copy: the API is cacheable for an hour), and shows the
//   content's errors over the page (as Vite's error overlay does) until they are fixed.
(() => {
  "use strict";
  // Where the landing page is (the server sets it: "/" unless a site's dev server owns "/").
  const LANDING = "/";
  const ROOT = "content-api-preview";
  const OVERLAY = "content-api-overlay";
  const landing = () => document.getElementById(ROOT);

  const setLive = (live) => {
    const badge = document.getElementById("content-api-live");
    if (badge) {
      badge.textContent = live ? "live" : "reconnecting…";
      badge.classList.toggle("live", live);
    }
  };

  // Responses can arrive out of order (one connection each, on a busy machine): a fetch's
  // result is used only when nothing newer has been asked for or heard since it was sent.
  let landingAsked = 0;
  const refreshLanding = async () => {
    const asked = ++landingAsked;
    const response = await fetch(LANDING, { cache: "no-store" });
    const fresh = new DOMParser()
      .parseFromString(await response.text(), "text/html")
      .getElementById(ROOT);
    const current = landing();
    if (fresh && current && asked === landingAsked) {
      // Keep the folded or unfolded state of each group the author chose.
      const open = new Map(
        [...current.querySelectorAll("details")].map((d) => [d.querySelector("summary").textContent.replace(/ \(\d+\)$/, ""), d.open]),
      );
      for (const d of fresh.querySelectorAll("details")) {
        const key = d.querySelector("summary").textContent.replace(/ \(\d+\)$/, "");
        if (open.has(key)) d.open = open.get(key);
      }
      current.replaceWith(fresh);
      setLive(true);
    }
  };

  // The files this page was served from: "/developers/" is "/developers/index.html".
  const here = location.pathname;
  const ownFiles = new Set([here, here.endsWith("/") ? here + "index.html" : here + "/index.html", here + ".html"]);

  const escape = (text) =>
    text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);

  // The overlay lives in a shadow root: the page's styles (the portal's `pre` background, a
  // site's `div` rules) never reach it, so its colours are its own on every page.
  const OVERLAY_STYLE = `
    :host { all: initial; }
    .box { box-sizing: border-box; position: fixed; left: 0; right: 0; bottom: 0; z-index: 2147483647;
      max-height: 60vh; overflow: auto; margin: 0; padding: .75rem 1rem;
      background: #1e1e1e; color: #f0f0f0; border-top: 4px solid #d93025; box-shadow: 0 -4px 16px #0006;
      font: 14px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; text-align: left; }
    p { margin: 0 0 .5rem; font-family: system-ui, sans-serif; color: #f0f0f0; }
    a { color: #8ab4f8; }
    button { font: inherit; color: #1b1b1b; background: #f0f0f0; border: 1px solid #9aa0a6;
      border-radius: 4px; padding: 0 .5rem; cursor: pointer; }
    pre { margin: 0 0 .75rem; padding: 0; background: transparent; color: #f0f0f0; font: inherit;
      white-space: pre-wrap; overflow-wrap: anywhere; }
  `;

  const showOverlay = (diagnostics) => {
    document.getElementById(OVERLAY)?.remove();
    const errors = diagnostics.filter((d) => d.severity === "error");
    if (errors.length === 0) return;
    const host = document.createElement("div");
    host.id = OVERLAY;
    host.setAttribute("role", "alert");
    host.style.cssText = "all:initial";
    const root = host.attachShadow({ mode: "open" });
    root.innerHTML =
      `<style>${OVERLAY_STYLE}</style><div class="box">` +
      `<p><strong>${errors.length} content error${errors.length === 1 ? "" : "s"}</strong>: the last good version stays published. <a href="${LANDING}">All errors</a> · <button type="button">Hide</button></p>` +
      errors.map((d) => `<pre>${escape(d.rendered)}</pre>`).join("") +
      `</div>`;
    root.querySelector("button").addEventListener("click", () => host.remove());
    document.body.append(host);
  };

  // Counts the diagnostics events: the server stores its diagnostics before it sends the
  // event, so an event heard after a fetch was sent is at least as new as that fetch's answer.
  let diagnosticsHeard = 0;
  const loadDiagnostics = async () => {
    const heard = diagnosticsHeard;
    const response = await fetch("/__diagnostics", { cache: "no-store" });
    const { diagnostics } = await response.json();
    if (heard === diagnosticsHeard) showOverlay(diagnostics);
  };

  const events = new EventSource("/__events");
  events.addEventListener("open", () => {
    setLive(true);
    // Events sent while disconnected are lost: catch up.
    if (landing()) refreshLanding().catch(() => setLive(false));
    else loadDiagnostics().catch(() => {});
  });
  events.addEventListener("error", () => setLive(false));
  // What pages of this tab read from this origin (fetch, XHR, scripts): the API's answers carry
  // `Cache-Control: public, max-age=3600`, as in production, so a page reloaded after an edit
  // would get the browser's cached copy for an hour. Each rebuild refreshes the cached copy of
  // every changed URL any page of the tab read, and reloads this page when it read one.
  const READ_KEY = "content-api-read";
  const readHere = () =>
    performance
      .getEntriesByType("resource")
      .map((entry) => new URL(entry.name, location.href))
      .filter((url) => url.origin === location.origin)
      .map((url) => url.pathname);
  const readInTab = () => {
    let stored = [];
    try {
      stored = JSON.parse(sessionStorage.getItem(READ_KEY) || "[]");
    } catch {}
    const all = [...new Set([...stored, ...readHere()])].slice(-500);
    try {
      sessionStorage.setItem(READ_KEY, JSON.stringify(all));
    } catch {}
    return new Set(all);
  };
  readInTab();
  for (const moment of ["load", "pagehide"]) addEventListener(moment, () => readInTab());

  events.addEventListener("rebuild", async (event) => {
    // One event per lane ("api", then "documents"); one that changed nothing only says that
    // its lane finished.
    const { changed, removed } = JSON.parse(event.data);
    if (changed.length + removed.length === 0) return;
    if (landing()) {
      refreshLanding().catch(() => setLive(false));
      return;
    }
    const read = readInTab();
    const stale = [...changed, ...removed].filter((url) => read.has(url));
    await Promise.all(stale.map((url) => fetch(url, { cache: "reload" }).catch(() => {})));
    const readByThisPage = new Set(readHere());
    if ([...changed, ...removed].some((url) => ownFiles.has(url) || readByThisPage.has(url))) location.reload();
  });
  events.addEventListener("diagnostics", (event) => {
    diagnosticsHeard += 1;
    if (landing()) refreshLanding().catch(() => setLive(false));
    else showOverlay(JSON.parse(event.data).diagnostics);
  });
  events.addEventListener("schedule", () => {
    if (landing()) refreshLanding().catch(() => setLive(false));
  });
  events.addEventListener("lagged", () => {
    if (landing()) refreshLanding().catch(() => setLive(false));
    else location.reload();
  });
})();
