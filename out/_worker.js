// The content API's edge layer for Cloudflare Pages (advanced mode), written by
// content-api on every build. Do not edit: the next build rewrites it.
const TABLES = {
  "methods": [
    "GET",
    "HEAD"
  ],
  "allow": "GET, HEAD",
  "contractHeaders": [
    [
      "Cache-Control",
      "public, max-age=3600"
    ],
    [
      "Access-Control-Allow-Origin",
      "*"
    ],
    [
      "X-Content-Type-Options",
      "nosniff"
    ],
    [
      "Vary",
      "Accept"
    ]
  ],
  "documentHeaders": {
    ".well-known/api-catalog": [
      [
        "Link",
        "</.well-known/api-catalog>; rel=\"api-catalog\""
      ]
    ]
  },
  "documentTypes": {
    ".well-known/api-catalog": "application/linkset+json; profile=\"https://www.rfc-editor.org/info/rfc9727\"",
    ".well-known/ai-catalog.json": "application/ai-catalog+json",
    ".well-known/mcp/server-card.json": "application/mcp-server-card+json"
  },
  "extensionTypes": {
    "json": "application/json",
    "md": "text/markdown; charset=utf-8",
    "txt": "text/plain; charset=utf-8",
    "html": "text/html; charset=utf-8"
  },
  "defaultType": "application/octet-stream",
  "jsonType": "application/json",
  "hostFiles": [
    "_headers",
    "_redirects",
    "_routes.json",
    "_worker.js",
    "_nginx_gone.conf"
  ],
  "gone": [],
  "pathSlot": "{{path}}",
  "methodSlot": "{{method}}",
  "problems": {
    "404": "{\"type\":\"https://lucia-montoya.example/developers#errors\",\"title\":\"Not Found\",\"status\":404,\"detail\":\"No resource exists at {{path}}.\",\"instance\":\"{{path}}\",\"error\":{\"code\":\"resource_not_found\",\"message\":\"No resource exists at this path.\",\"hint\":\"Every valid URL is listed at https://lucia-montoya.example/api/index.json, and the API is described at https://lucia-montoya.example/openapi.json; endpoint paths end in .json.\",\"documentation_url\":\"https://lucia-montoya.example/developers\"}}",
    "405": "{\"type\":\"https://lucia-montoya.example/developers#errors\",\"title\":\"Method Not Allowed\",\"status\":405,\"detail\":\"{{method}} is not supported at {{path}}: the API is read-only (GET and HEAD only).\",\"instance\":\"{{path}}\",\"error\":{\"code\":\"method_not_allowed\",\"message\":\"The API is read-only.\",\"hint\":\"Retry the request with GET (or HEAD).\",\"documentation_url\":\"https://lucia-montoya.example/developers\"}}",
    "410": "{\"type\":\"https://lucia-montoya.example/developers#errors\",\"title\":\"Gone\",\"status\":410,\"detail\":\"The resource at {{path}} existed and was permanently removed.\",\"instance\":\"{{path}}\",\"error\":{\"code\":\"gone\",\"message\":\"This resource existed and was permanently removed.\",\"hint\":\"Fetch https://lucia-montoya.example/api/index.json for the current URLs.\",\"documentation_url\":\"https://lucia-montoya.example/developers\"}}",
    "500": "{\"type\":\"https://lucia-montoya.example/developers#errors\",\"title\":\"Internal Server Error\",\"status\":500,\"detail\":\"The request for {{path}} could not be completed.\",\"instance\":\"{{path}}\",\"error\":{\"code\":\"internal_error\",\"message\":\"The request could not be completed.\",\"hint\":\"Retrying is safe: every endpoint is read-only.\",\"documentation_url\":\"https://lucia-montoya.example/developers\"}}"
  }
};

// The same rules as `content-api serve` (src/serve/router.rs, src/serve/path.rs), in the
// order it applies them: the method, then the path, then the file (or its Markdown twin),
// then 410 for a removed API path, else 404. Static files come from the Pages asset server
// (env.ASSETS); every answer gets the contract's headers here, because Cloudflare applies
// `_headers` to static answers only, never to a worker's.

const GONE = new Set(TABLES.gone);

function withHeaders(headers, path) {
  for (const [name, value] of TABLES.contractHeaders) headers.set(name, value);
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
// file outside it or a hidden or host file (serve/path.rs: SafePath::parse).
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

function isApi(path) {
  return path === "api" || path.startsWith("api/");
}

// render/http.rs: markdown_twin.
function markdownTwin(path) {
  const name = path.split("/").pop();
  if (isApi(path) || (name.includes(".") && !name.endsWith(".html"))) return null;
  let page = path.endsWith("index.html") ? path.slice(0, -"index.html".length)
    : path.endsWith(".html") ? path.slice(0, -".html".length)
    : path;
  page = page.replace(/\/+$/, "");
  return page === "" ? "index.md" : page + ".md";
}

// serve/path.rs: prefers_markdown.
function prefersMarkdown(accept) {
  let markdown = 0;
  let other = 0;
  for (const range of accept.split(",")) {
    const params = range.split(";");
    const media = params.shift().trim().toLowerCase();
    let quality = 1;
    for (const param of params) {
      const [name, value] = param.split("=");
      if (name && value !== undefined && name.trim().toLowerCase() === "q") {
        const q = Number(value.trim());
        if (!Number.isNaN(q)) { quality = q; break; }
      }
    }
    if (media === "text/markdown") markdown = Math.max(markdown, quality);
    else if (media !== "" && !media.endsWith("/*")) other = Math.max(other, quality);
  }
  return markdown > 0 && markdown >= other;
}

// serve/path.rs: SafePath::candidates.
function candidates(path, markdown) {
  if (isApi(path)) return path.endsWith(".json") ? [path] : [];
  if (TABLES.hostFiles.includes(path)) return [];
  const folder = path === "" || path.endsWith("/");
  const out = [];
  if (markdown) {
    const twin = markdownTwin(path);
    if (twin) out.push(twin);
  }
  if (folder) {
    out.push(path + "index.html");
  } else {
    out.push(path);
    if (!path.split("/").pop().includes(".")) {
      out.push(path + ".html", path + "/index.html");
    }
  }
  return out;
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

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const raw = url.pathname;
    const head = request.method === "HEAD";
    try {
      if (!TABLES.methods.includes(request.method)) {
        return problem(405, raw, request.method, false);
      }
      const path = safePath(raw);
      if (path === null) return problem(404, raw, request.method, head);
      const markdown = !isApi(path) && prefersMarkdown(request.headers.get("Accept") || "");
      for (const file of candidates(path, markdown)) {
        const found = await asset(env, url, file, request);
        if (found) {
          const headers = withHeaders(new Headers(found.headers), file);
          if (found.status === 200) headers.set("Content-Type", mediaType(file));
          return new Response(head ? null : found.body, { status: found.status, headers });
        }
      }
      if (GONE.has(path)) return problem(410, raw, request.method, head);
      return problem(404, raw, request.method, head);
    } catch (error) {
      console.error(`a request for ${raw} failed: ${error}`);
      return problem(500, raw, request.method, head);
    }
  },
};
