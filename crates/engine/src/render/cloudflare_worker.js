// The content API's edge layer for Cloudflare Pages. It answers what a static host cannot, and
// only that: under /api/ the contract's rules (405 with a body, a 404 naming the path, 410 for a
// removed path, the contract's headers on every answer, errors included); Markdown negotiation
// for a page whose Markdown twin exists; a 404 for the tool's state and host files. Every other
// request is handed to the site as it is (`pass`), so the site's redirects, trailing-slash
// canonicalization, 404 page and header rules answer it exactly as they would without this
// layer. The order of the API rules is `content-api serve`'s (src/serve/router.rs).
//
// Two entry points share it: `export default { fetch }` when the module is the output folder's
// `_worker.js` (a site without Pages Functions), and `onRequest` when the site's own
// `functions/` imports it (its middleware runs first, then this).

const GONE = new Set(TABLES.gone);

function withHeaders(headers, path) {
  for (const [name, value] of TABLES.contractHeaders) headers.set(name, value);
  headers.set(TABLES.layer[0], TABLES.layer[1]);
  for (const [name, value] of TABLES.documentHeaders[path] || []) headers.set(name, value);
  return headers;
}

function mediaType(path) {
  if (TABLES.documentTypes[path]) return TABLES.documentTypes[path];
  const name = path.split("/").pop();
  const dot = name.lastIndexOf(".");
  const extension = dot < 0 ? null : name.slice(dot + 1);
  return TABLES.extensionTypes[extension] || TABLES.defaultType;
}

// A section-7 error body naming the request path (and the method, for 405).
function problem(status, rawPath, method, head) {
  const fill = (text) => JSON.stringify(text).slice(1, -1);
  const body = TABLES.problems[status]
    .split(TABLES.pathSlot).join(fill(rawPath))
    .split(TABLES.methodSlot).join(fill(method));
  const headers = withHeaders(new Headers({ "Content-Type": TABLES.jsonType }), "");
  if (status === 405) headers.set("Allow", TABLES.allow);
  headers.set("Content-Length", String(new TextEncoder().encode(body).length));
  return new Response(head ? null : body, { status, headers });
}

// The path relative to the output folder, decoded once; null for anything that could name a
// file outside it or a hidden file (serve/path.rs: SafePath::parse).
function safePath(raw) {
  if (!raw.startsWith("/")) return null;
  let decoded;
  try {
    decoded = decodeURIComponent(raw.slice(1));
  } catch {
    return null;
  }
  if (/[\0\\:]/.test(decoded)) return null;
  if (decoded === "") return "";
  const parts = decoded.split("/");
  const last = parts.length - 1;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    const ok =
      part === "" ? i === last && i > 0
      : part === "." || part === ".." ? false
      : part === ".well-known" ? i === 0
      : !part.startsWith(".");
    if (!ok) return null;
  }
  return decoded;
}

function isApi(raw) {
  return raw === "/api" || raw.startsWith("/api/");
}

// Files of the tool that no host serves: its state folder and the host files.
function isHidden(raw) {
  let decoded;
  try {
    decoded = decodeURIComponent(raw.slice(1));
  } catch {
    return false;
  }
  const path = decoded.replace(/\/+$/, "");
  return TABLES.hidden.includes(path) || TABLES.hiddenFolders.some((f) => path === f || path.startsWith(f + "/"));
}

// render/http.rs: markdown_twin.
function markdownTwin(path) {
  const name = path.split("/").pop();
  if (name.includes(".") && !name.endsWith(".html")) return null;
  let page = path.endsWith("index.html") ? path.slice(0, -"index.html".length)
    : path.endsWith(".html") ? path.slice(0, -".html".length)
    : path;
  page = page.replace(/\/+$/, "");
  return page === "" ? "index.md" : page + ".md";
}

// Whether a page may have a twin this tool wrote: the pages of its twin folders.
function twinnable(path) {
  const page = path.replace(/\/+$/, "");
  return TABLES.twinPages.some((p) => (p.endsWith("/") ? page.startsWith(p) : page === p || page.startsWith(p + "/")));
}

// serve/path.rs: prefers_markdown. Each type gets the quality of the most specific range that
// matches it (RFC 9110, 12.5.1); Markdown wins only with a higher quality than HTML, so a tie,
// `*/*` alone included, stays HTML.
function prefersMarkdown(accept) {
  const ranges = [];
  for (const range of accept.split(",")) {
    const params = range.split(";");
    const media = params.shift().trim().toLowerCase();
    if (media === "") continue;
    let quality = 1;
    for (const param of params) {
      const [name, value] = param.split("=");
      if (name && value !== undefined && name.trim().toLowerCase() === "q") {
        const q = Number(value.trim());
        quality = Number.isNaN(q) ? 0 : Math.min(Math.max(q, 0), 1);
        break;
      }
    }
    ranges.push([media, quality]);
  }
  const qualityOf = (type) => {
    let best = -1;
    let found = 0;
    for (const [media, quality] of ranges) {
      const rank = media === type ? 3 : media === type.split("/")[0] + "/*" ? 2 : media === "*/*" ? 1 : 0;
      if (rank > best && rank > 0) {
        best = rank;
        found = quality;
      } else if (rank === best && rank > 0) {
        found = Math.max(found, quality);
      }
    }
    return found;
  };
  const markdown = qualityOf("text/markdown");
  return markdown > 0 && markdown > qualityOf("text/html");
}

// The asset server answers an HTML file at its pretty URL (`x/` for `x/index.html`, `x` for
// `x.html`) and redirects the others, so ask for the pretty one; a redirect means "not this
// file".
async function asset(env, url, file, request) {
  const pretty = file.endsWith("index.html") ? file.slice(0, -"index.html".length)
    : file.endsWith(".html") ? file.slice(0, -".html".length)
    : file;
  const headers = new Headers();
  const condition = request.headers.get("If-None-Match");
  if (condition) headers.set("If-None-Match", condition);
  const response = await env.ASSETS.fetch(new URL("/" + pretty, url), {
    method: request.method,
    headers,
    redirect: "manual",
  });
  return response.status === 200 || response.status === 304 ? response : null;
}

function answer(found, file, head, extra) {
  const headers = withHeaders(new Headers(found.headers), file);
  if (found.status === 200) headers.set("Content-Type", mediaType(file));
  for (const [name, value] of extra) headers.set(name, value);
  return new Response(head ? null : found.body, { status: found.status, headers });
}

// The contract under /api/: every answer is this layer's own.
async function api(request, env, url, raw) {
  const head = request.method === "HEAD";
  if (!TABLES.methods.includes(request.method)) return problem(405, raw, request.method, false);
  const path = safePath(raw);
  if (path !== null && path.endsWith(".json")) {
    const found = await asset(env, url, path, request);
    if (found) return answer(found, path, head, []);
  }
  if (path !== null && GONE.has(path)) return problem(410, raw, request.method, head);
  return problem(404, raw, request.method, head);
}

function addVary(response) {
  const vary = response.headers.get("Vary") || "";
  if (vary.split(",").some((v) => v.trim().toLowerCase() === "accept")) return response;
  const headers = new Headers(response.headers);
  headers.set("Vary", vary ? `${vary}, Accept` : "Accept");
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

// A page with a twin: Markdown when the client prefers it; otherwise the site's own answer,
// marked as varying with Accept.
async function page(request, env, url, raw, pass) {
  const path = safePath(raw);
  if (path === null || !TABLES.methods.includes(request.method)) return pass();
  const markdown = prefersMarkdown(request.headers.get("Accept") || "");
  const own = TABLES.ownPages[path.replace(/\/(index\.html)?$/, "")];
  if (own) {
    // A page of the tool's (the developer portal): answered at each of its URLs, as `serve`
    // answers it, whatever the host's canonical form.
    for (const file of markdown ? [markdownTwin(path), own] : [own]) {
      const found = await asset(env, url, file, request);
      if (found) return answer(found, file, request.method === "HEAD", [["Vary", "Accept"]]);
    }
    return pass();
  }
  const twin = twinnable(path) ? markdownTwin(path) : null;
  if (twin === null) return pass();
  if (markdown) {
    const found = await asset(env, url, twin, request);
    if (found) return answer(found, twin, request.method === "HEAD", [["Vary", "Accept"]]);
    return pass();
  }
  const exists = await env.ASSETS.fetch(new URL("/" + twin, url), { method: "HEAD", redirect: "manual" });
  const response = await pass();
  return exists.status === 200 ? addVary(response) : response;
}

async function handle(request, env, pass) {
  const url = new URL(request.url);
  const raw = url.pathname;
  try {
    if (isApi(raw)) return await api(request, env, url, raw);
    // What the site answers for a path that does not exist: its own 404 page.
    if (isHidden(raw)) return await env.ASSETS.fetch(new URL(TABLES.missing, url), { method: "GET", redirect: "manual" });
    return await page(request, env, url, raw, pass);
  } catch (error) {
    console.error(`a request for ${raw} failed: ${error}`);
    return isApi(raw) ? problem(500, raw, request.method, request.method === "HEAD") : pass();
  }
}

export default {
  fetch(request, env) {
    return handle(request, env, () => env.ASSETS.fetch(request));
  },
};

export function onRequest(context) {
  return handle(context.request, context.env, () => context.next());
}
