// The Astro integration, the package `@content-api/astro`: `integrations: [contentApi()]` in
// astro.config.mjs (what `astro add @content-api/astro` writes).
//
// - `astro dev`: runs `content-api serve --behind-dev-server` (the same watcher as `watch`,
//   writing into Astro's cache folder) and puts a middleware in front of Astro's own: every
//   request the tool may answer is asked of it first, and what it declines (a page, an asset,
//   anything that is not the API, its documents or a Markdown twin) goes on to Astro. What the
//   site serves itself stays the site's, as production's output keeps the site's own file: a
//   file in public/ (the tool is not asked), a path one of its prerendered endpoints answers
//   outside /api/ (Astro is asked first; its 404 goes on to the tool). So the
//   dev server answers the API on the site's own origin with production's rules, and a broken
//   content file shows over every page (the tool's overlay) and in the dev server's log.
// - `astro build`: at the end of the build, `content-api build --out <Astro's output folder>`,
//   so the site's `build` script needs nothing else.
//
// The settings are the site's `watch.toml` (read by the binary); the options below only say
// where it is and how to run. Nothing is ever written into `src/` or `public/`, nor by `astro
// dev` into the site's Pages Functions (`functions/`: `build` installs the API's route).
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const { findBinary } = require(`${launcherPackage()}/binary`);

/**
 * The launcher package (`@content-api/cli`): this package's one dependency, as scripts/npm-pack
 * writes it from platforms.json (so the scope is named there only). The launcher finds the
 * binary: the platform packages are its optional dependencies, which only it can resolve (pnpm
 * links a package's own dependencies only).
 */
function launcherPackage() {
  const [launcher] = Object.keys(require("./package.json").dependencies ?? {});
  if (!launcher) {
    throw new Error(
      "content-api's Astro integration names no launcher package among its dependencies: " +
        "use the package scripts/npm-pack makes (or the one on npm), not this folder itself",
    );
  }
  return launcher;
}

/** The header `serve --behind-dev-server` marks a declined request with. */
const DECLINED = "content-api-declined";
/** On a declined request: headers to add if the answer is an HTML page (`name=value`, tabs between). */
const PAGE_HEADERS = "content-api-page-headers";

/** How long the tool may take to start answering a request (it is on this machine): past it,
 * a page goes on to Astro and an API path gets a 503, so a stalled tool holds no page up. */
const ANSWER_LIMIT_MS = 3000;

/** Vite's guard against DNS rebinding (its `Host` check; named so from Vite 6.0.9). */
const VITE_HOST_CHECK = /^viteHost\w*Middleware$/;

/** Paths of Vite and Astro themselves, never the tool's: not even asked. */
const DEV_SERVER_PATHS = /^\/(@|node_modules\/|src\/|_astro\/|__vite|\.astro\/)/;

/** The tool's own paths in a dev session (its live reload, overlay and landing page): always
 * the tool's, whatever route of the site's might match them. */
const TOOL_DEV_PATHS = /^\/(__preview\.js$|__events$|__diagnostics$|__content-api(\/|$))/;

/** Files that configure a static host, which it never serves (Cloudflare Pages and Netlify
 * answer 404): the site's own in public/ are not served by the dev server either. */
const HOST_FILES = new Set(["/_headers", "/_redirects", "/_routes.json", "/_worker.js", "/_content-api.js"]);

/**
 * @param {object} [options]
 * @param {string} [options.config] The site's `watch.toml` (default: the one in the project root).
 * @param {string} [options.content] The content folder, when not `watch.toml`'s.
 * @param {boolean} [options.drafts] `astro dev` only: publish drafts too.
 * @param {boolean} [options.future] `astro dev` only: publish scheduled content too.
 */
export default function contentApi(options = {}) {
  let root;
  let publicDir;
  /** The site's own routes that write a file at their path (endpoints: `src/pages/llms.txt.ts`,
   * `src/pages/blog/[slug].md.ts`), from `astro:routes:resolved`: what they match is the site's,
   * as their output file is once built. */
  let siteEndpoints = [];
  let devOut;
  let astroConfig;
  let logger;
  let server;
  let child;
  /** Resolves to the port `serve` listens on, once its first build is done. */
  let ready;
  /** False once `serve` stopped: the API is answered 503 from then on. */
  let alive = false;
  /** The origin the author opens (`http://localhost:4321`), once the dev server listens. */
  let origin;
  /** The middleware itself, to find it in Vite's stack. */
  let entry;
  /** Whether Vite's own host check runs before the middleware (it then passes `Host` as the
   * origin's: the browser's was judged already, by the site's own `allowedHosts`). */
  let hostChecked = false;

  const siteArgs = () => {
    const args = [];
    if (options.config) args.push("--config", path.resolve(root, options.config));
    if (options.content) args.push("--content", path.resolve(root, options.content));
    return args;
  };

  const startServe = (origin) => {
    const args = [
      "serve",
      "--behind-dev-server",
      "--addr",
      "127.0.0.1:0",
      "--origin",
      origin,
      "--out",
      devOut,
      ...siteArgs(),
    ];
    if (options.drafts) args.push("--drafts");
    if (options.future) args.push("--future");
    alive = true;
    child = spawn(findBinary(), args, {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NO_COLOR: "1" },
    });
    ready = new Promise((resolve, reject) => {
      let stdout = "";
      child.stdout.on("data", (chunk) => {
        stdout += chunk;
        const found = /listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(stdout);
        if (found) resolve(Number(found[1]));
      });
      child.on("exit", (code, signal) => {
        alive = false;
        reject(new Error(`content-api serve stopped (${signal ?? `exit status ${code}`}); the API is not served`));
        if (server) logger.error(`content-api serve stopped (${signal ?? `exit status ${code}`}): restart astro dev once the message above is dealt with`);
      });
      child.on("error", reject);
    });
    ready.catch(() => {});
    relayLog(child.stderr, logger);
    // However the dev server ends, the tool's server ends with it.
    process.once("exit", () => child.kill("SIGTERM"));
  };

  /** Asks `serve` first, but for what the site serves itself; Astro answers what it declines. */
  const middleware = (request, response, next) => {
    const url = request.url ?? "/";
    const pathname = url.split("?")[0];
    const api = pathname === "/api" || pathname.startsWith("/api/");
    if (!child || DEV_SERVER_PATHS.test(pathname)) return next();
    // The API takes GET and HEAD only (405 otherwise); other methods elsewhere are the site's,
    // and their body is Astro's to read.
    if (!["GET", "HEAD"].includes(request.method) && !api) return next();
    // A file the site keeps in public/ is the site's, as it is once deployed.
    if (!api && isPublicFile(publicDir, pathname)) return next();
    // A host's configuration file is never served as a file: if the tool declines it (it is
    // no file of the API's), Astro answers its 404, not the site's public/ copy.
    const hostFile = HOST_FILES.has(decoded(pathname));
    const onToAstro = () => {
      if (hostFile) request.url = HOST_FILE_NOT_FOUND + pathname;
      next();
    };
    const ask = (toAstro) => askTool(request, response, pathname, api, toAstro);
    // A path one of the site's prerendered endpoints answers is the site's too: its file, once
    // built, wins over the tool's (the tool never overwrites a file it did not write). Astro is
    // asked first; its 404 (a dynamic route whose getStaticPaths has no such path: no file of
    // the site's once built) goes on to the tool, and back to Astro's 404 if the tool declines.
    // Not the API, which is the tool's by contract, nor the tool's own dev paths.
    if (!api && !TOOL_DEV_PATHS.test(pathname) && isSiteEndpoint(siteEndpoints, pathname)) {
      return unless404(response, next, (replay) => ask(replay));
    }
    ask(onToAstro);
  };

  /** Asks `serve` about `request`; `toAstro()` when it declines, or cannot answer a path
   * outside /api/ (stopped, or not within ANSWER_LIMIT_MS); an API path it cannot answer gets a
   * JSON 503. */
  const askTool = (request, response, pathname, api, toAstro) => {
    let settled = false;
    const unanswered = (why) => {
      if (settled) return;
      settled = true;
      if (api && !response.headersSent) unavailable(response, pathname, why);
      else if (!response.headersSent) toAstro();
    };
    if (!alive) return unanswered("it stopped; restart astro dev once its message above is dealt with");
    const limit = setTimeout(
      () => unanswered(`it did not answer within ${ANSWER_LIMIT_MS / 1000} s`),
      ANSWER_LIMIT_MS,
    );
    const host = hostChecked && origin ? new URL(origin).host : undefined;
    ready.then(
      (port) => {
        if (settled) return;
        forward(port, request, response, host, {
          answered: () => {
            settled = true;
            clearTimeout(limit);
          },
          declined: () => {
            settled = true;
            clearTimeout(limit);
            toAstro();
          },
          failed: (why) => {
            clearTimeout(limit);
            unanswered(why);
          },
          isSettled: () => settled,
        });
      },
      (error) => {
        clearTimeout(limit);
        unanswered(error.message);
      },
    );
  };
  entry = { route: "", handle: middleware };

  return {
    name: "content-api",
    hooks: {
      "astro:config:setup": ({ command, injectScript }) => {
        if (command === "dev") {
          // The tool's live reload and content-error overlay, on every page of the site.
          injectScript(
            "head-inline",
            'document.addEventListener("DOMContentLoaded",()=>{const s=document.createElement("script");s.src="/__preview.js";s.defer=true;document.head.append(s)});',
          );
        }
      },
      "astro:config:done": ({ config, logger: astroLogger }) => {
        astroConfig = config;
        logger = astroLogger;
        root = fileURLToPath(config.root);
        // Without its trailing separator: a file in it is `publicDir + path.sep + name`.
        publicDir = path.resolve(fileURLToPath(config.publicDir));
        devOut = path.join(fileURLToPath(config.cacheDir), "content-api");
      },
      // Astro 5 and later: the site's routes, again whenever they change in astro dev.
      "astro:routes:resolved": ({ routes }) => {
        siteEndpoints = routes.filter(
          (route) =>
            route.type === "endpoint" &&
            route.origin !== "internal" &&
            // An endpoint rendered on demand writes no file: the host serves the tool's first.
            route.isPrerendered !== false &&
            route.patternRegex instanceof RegExp,
        );
      },
      "astro:server:setup": ({ server: devServer }) => {
        server = devServer;
        // Before Astro's own: Astro answers every path it does not know with its own 404 page.
        devServer.middlewares.stack.unshift(entry);
      },
      "astro:server:start": ({ address }) => {
        // Vite's internal middlewares are in place now: the tool is asked after Vite's host
        // check (a page elsewhere reaching the dev server through a name of its own is refused
        // by it), and still before Astro's.
        const stack = server.middlewares.stack;
        const isHostCheck = (layer) => VITE_HOST_CHECK.test(layer.handle?.name ?? "");
        if (stack.some(isHostCheck) && stack.includes(entry)) {
          stack.splice(stack.indexOf(entry), 1);
          stack.splice(stack.findIndex(isHostCheck) + 1, 0, entry);
          hostChecked = true;
        }
        const host = ["127.0.0.1", "::1", "::", "0.0.0.0", "localhost"].includes(address.address)
          ? "localhost"
          : address.address;
        origin = `http://${host}:${address.port}`;
        startServe(origin);
        ready.then(
          () => logger.info(`the API is served here too: http://${host}:${address.port}/api/index.json`),
          (error) => logger.error(error.message),
        );
      },
      "astro:server:done": () => {
        child?.kill("SIGTERM");
      },
      "astro:build:done": ({ dir, logger: buildLogger }) => {
        // A static site's pages and assets are in `dir`; a server build's static assets are
        // in build.client, which the host serves as files.
        const out =
          astroConfig.output === "static" ? fileURLToPath(dir) : fileURLToPath(astroConfig.build.client);
        // Astro's `site` is where the pages, and so the API beside them, are published.
        const site = astroConfig.site ? ["--base-url", astroConfig.site.replace(/\/+$/, "")] : [];
        const args = ["build", "--out", out, ...site, ...siteArgs()];
        buildLogger.info(`content-api ${args.join(" ")}`);
        const run = spawnSync(findBinary(), args, { cwd: root, stdio: "inherit" });
        if (run.error) throw new Error(`content-api: cannot run the binary: ${run.error.message}`);
        if (run.status !== 0) {
          throw new Error(`content-api build failed (exit status ${run.status ?? run.signal}): see its messages above`);
        }
      },
    },
  };
}

/** Where a host file's request goes on to Astro: a path no file and no page has, so Astro
 * answers its 404 (the site's 404 page) as the host does. */
const HOST_FILE_NOT_FOUND = "/__content-api-host-file";

/** `pathname` with its escapes decoded; `undefined` if one is malformed. */
function decoded(pathname) {
  try {
    return decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
}

/** Whether one of the site's endpoints (`routes`, from `astro:routes:resolved`) answers
 * `pathname`, as Astro matches it (the decoded path). */
function isSiteEndpoint(routes, pathname) {
  let decoded;
  try {
    decoded = decodeURI(pathname);
  } catch {
    decoded = pathname;
  }
  return routes.some((route) => route.patternRegex.test(decoded) || route.patternRegex.test(pathname));
}

/**
 * Hands the request to Astro (`next`), holding back a 404 of its: then `onNotFound(replay)` is
 * called instead, with the response as it was before Astro, and `replay()` sends Astro's 404 as
 * Astro wrote it. Astro writes an answer with `writeHead`, or a status and `end`.
 */
function unless404(response, next, onNotFound) {
  const own = { writeHead: response.writeHead, write: response.write, end: response.end };
  const before = response.getHeaders();
  /** Astro's 404 held back: the rest of its writeHead's arguments, its headers, its body. */
  let held;
  let done = false;
  const restore = () => Object.assign(response, own);
  const holding = () => {
    if (!held && !done && !response.headersSent && response.statusCode === 404) {
      held = { rest: [], headers: response.getHeaders(), chunks: [] };
    }
    return held;
  };
  response.writeHead = function (status, ...rest) {
    if (status === 404 && !held && !done) {
      held = { rest, headers: this.getHeaders(), chunks: [] };
      return this;
    }
    done = true;
    restore();
    return own.writeHead.call(this, status, ...rest);
  };
  response.write = function (chunk, ...rest) {
    if (!holding()) {
      done = true;
      restore();
      return own.write.call(this, chunk, ...rest);
    }
    held.chunks.push(chunk);
    rest.find((arg) => typeof arg === "function")?.();
    return true;
  };
  response.end = function (chunk, ...rest) {
    if (!holding()) {
      done = true;
      restore();
      return own.end.call(this, chunk, ...rest);
    }
    if (chunk !== undefined && typeof chunk !== "function") held.chunks.push(chunk);
    done = true;
    restore();
    const astro404 = held;
    // The response as the tool would have found it: none of Astro's headers.
    for (const name of response.getHeaderNames()) response.removeHeader(name);
    for (const [name, value] of Object.entries(before)) response.setHeader(name, value);
    response.statusCode = 200;
    onNotFound(() => {
      for (const [name, value] of Object.entries(astro404.headers)) response.setHeader(name, value);
      response.writeHead(404, ...astro404.rest);
      for (const part of astro404.chunks) response.write(part);
      response.end();
    });
    return this;
  };
  next();
}

/** Whether `pathname` names a file in the site's public/ folder (`publicDir`: no trailing
 * separator). Never a host's configuration file, which no host serves. */
function isPublicFile(publicDir, pathname) {
  const relative = decoded(pathname);
  if (relative === undefined || HOST_FILES.has(relative)) return false;
  const file = path.join(publicDir, relative);
  if (!file.startsWith(publicDir + path.sep)) return false;
  try {
    const found = fs.statSync(file);
    return found.isFile() || fs.existsSync(path.join(file, "index.html"));
  } catch {
    return false;
  }
}

/**
 * Sends the request to `serve` on `port` (with `Host: host` when given) and its answer back,
 * unless it is declined; `on` is told which (`answered`, `declined`, or `failed` with why). An
 * answer that comes after the time limit (`on.isSettled()`) is dropped.
 */
function forward(port, request, response, host, on) {
  const upstream = http.request(
    {
      host: "127.0.0.1",
      port,
      method: request.method,
      path: request.url,
      headers: host ? { ...request.headers, host } : request.headers,
    },
    (answer) => {
      if (on.isSettled()) {
        answer.resume();
        upstream.destroy();
        return;
      }
      if (answer.headers[DECLINED]) {
        answer.resume();
        asDeployed(response, answer.headers.vary, answer.headers[PAGE_HEADERS]);
        return on.declined();
      }
      on.answered();
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
      // A client that goes away (an EventSource closed with its tab) ends the request too.
      response.on("close", () => upstream.destroy());
    },
  );
  upstream.on("error", (error) => on.failed(`it could not be reached (${error.message})`));
  if (request.readableEnded) upstream.end();
  else request.pipe(upstream);
}

/**
 * 503 for an API path the tool cannot answer now, as JSON (RFC 9457), not Astro's HTML 404:
 * a client of the API gets an error it can read, and retries.
 */
function unavailable(response, pathname, why) {
  const body = JSON.stringify({
    type: "about:blank",
    title: "Service Unavailable",
    status: 503,
    detail: `content-api serve, which answers the API in astro dev, cannot answer now: ${why}.`,
    instance: pathname,
  });
  response.writeHead(503, {
    "Content-Type": "application/problem+json",
    "Content-Length": Buffer.byteLength(body),
    "Cache-Control": "no-store",
    "Retry-After": "1",
  });
  response.end(body);
}

/**
 * What the deployed site adds to the site's own answer: `Vary: Accept` on a page that has a
 * Markdown twin (`serve` says so in its declined answer), and open CORS on a 404 (static hosts
 * send it with every file, the not-found page included). And, on an HTML page, the headers
 * `serve` asks for: a cookie with the output's generation and, when the browser's is older,
 * `Clear-Site-Data: "cache"`, so a page reloaded after an edit does not read the API's cached
 * copy (cacheable for an hour, as in production).
 */
function asDeployed(response, vary, pageHeaders) {
  if (vary) response.setHeader("Vary", vary);
  const forPages = (pageHeaders ?? "")
    .split("\t")
    .filter(Boolean)
    .map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]);
  const writeHead = response.writeHead;
  response.writeHead = function (status, ...rest) {
    if (status === 404 && !this.hasHeader("access-control-allow-origin")) {
      this.setHeader("Access-Control-Allow-Origin", "*");
    }
    const given = rest.find((arg) => arg && typeof arg === "object") ?? {};
    const type = String(
      this.getHeader("content-type") ??
        Object.entries(given).find(([name]) => name.toLowerCase() === "content-type")?.[1] ??
        "",
    );
    if (type.startsWith("text/html")) {
      for (const [name, value] of forPages) this.appendHeader(name, value);
    }
    return writeHead.call(this, status, ...rest);
  };
}

/** What `serve` writes to stderr, through Astro's logger at its level, one message per call:
 * a content error's lines (its ` --> file:line`, the source excerpt, `help:`) stay with its
 * `error:` line, at its level. A message ends where the next one starts, or when the stream
 * has been quiet for a moment. */
function relayLog(stream, logger) {
  let pending = "";
  /** The message being gathered: its level and lines. */
  let message = null;
  let quiet;
  const flush = () => {
    if (message) logger[message.level](message.lines.join("\n"));
    message = null;
  };
  stream.setEncoding("utf8");
  stream.on("data", (chunk) => {
    clearTimeout(quiet);
    pending += chunk;
    const lines = pending.split("\n");
    pending = lines.pop();
    for (const line of lines) {
      if (line.trim() === "") continue;
      const starts = messageStart(line);
      if (starts || !message) {
        flush();
        message = { level: starts?.level ?? "info", lines: [] };
      }
      message.lines.push(line.replace(/^\s*(INFO|WARN|ERROR)\s+/, "").trimEnd());
    }
    quiet = setTimeout(flush, 50);
  });
  stream.on("end", () => {
    clearTimeout(quiet);
    flush();
  });
}

/** The level of a line that starts a message (a log line, or a content diagnostic's first
 * line); `undefined` for a line that continues one. */
function messageStart(line) {
  if (/^\s*ERROR\b|^error(\[|:)/.test(line)) return { level: "error" };
  if (/^\s*WARN\b|^warning(\[|:)/.test(line)) return { level: "warn" };
  if (/^\s*INFO\b|^note(\[|:)/.test(line)) return { level: "info" };
  return undefined;
}
