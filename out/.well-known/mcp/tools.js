// Written by content-api: this site's read-only tools for agents in the browser (WebMCP),
// the tools its MCP server card lists. A page adds them with one line:
//   <script type="module" src="/.well-known/mcp/tools.js"></script>
// Where the browser has no WebMCP (document.modelContext, navigator.modelContext), it
// registers nothing; callTool(name, input) calls a tool without it.

const TOOLS = [
  {
    "name": "get_api_index",
    "title": "Get the API index",
    "description": "Every operation of the API with every URL it currently resolves to, the version, the versioning policy and links to every document.",
    "inputSchema": {
      "type": "object",
      "properties": {},
      "additionalProperties": false
    },
    "annotations": {
      "readOnlyHint": true,
      "destructiveHint": false,
      "idempotentHint": true,
      "openWorldHint": false
    },
    "read": {
      "path": "api/index.json",
      "params": [],
      "notFoundHint": ""
    }
  },
  {
    "name": "search_posts",
    "title": "Search posts",
    "description": "Published posts whose title or description contains every word of `query` (case-insensitively), optionally in one language and with one tag, newest first. Reads the post list of the language (or of both languages without `lang`) and returns its matching entries.",
    "inputSchema": {
      "type": "object",
      "properties": {
        "query": {
          "type": "string",
          "minLength": 1,
          "description": "Words to look for in titles and descriptions, case-insensitively."
        },
        "lang": {
          "type": "string",
          "enum": [
            "en",
            "es"
          ],
          "description": "Content language. Any other value yields 404."
        },
        "tag": {
          "type": "string",
          "pattern": "^[a-z0-9-]+$",
          "description": "A tag name. Valid values come from getApiIndex."
        }
      },
      "additionalProperties": false
    },
    "annotations": {
      "readOnlyHint": true,
      "destructiveHint": false,
      "idempotentHint": true,
      "openWorldHint": false
    },
    "read": {
      "all": "api/posts.json",
      "byLang": {
        "en": "api/posts-en.json",
        "es": "api/posts-es.json"
      },
      "notFoundHint": "get_api_index lists every tag timeline of each language."
    }
  },
  {
    "name": "list_series",
    "title": "List series",
    "description": "Every series with at least one published post in the language, newest activity first, with chapter counts.",
    "inputSchema": {
      "type": "object",
      "properties": {
        "lang": {
          "type": "string",
          "enum": [
            "en",
            "es"
          ],
          "description": "Content language. Any other value yields 404."
        }
      },
      "required": [
        "lang"
      ],
      "additionalProperties": false
    },
    "annotations": {
      "readOnlyHint": true,
      "destructiveHint": false,
      "idempotentHint": true,
      "openWorldHint": false
    },
    "read": {
      "path": "api/series/{lang}/index.json",
      "params": [
        "lang"
      ],
      "notFoundHint": ""
    }
  },
  {
    "name": "get_series",
    "title": "Get a series",
    "description": "The published chapters of one series in reading order.",
    "inputSchema": {
      "type": "object",
      "properties": {
        "lang": {
          "type": "string",
          "enum": [
            "en",
            "es"
          ],
          "description": "Content language. Any other value yields 404."
        },
        "slug": {
          "type": "string",
          "pattern": "^[a-z0-9-]+$",
          "description": "A series slug, always English. Valid values come from listSeries or getApiIndex."
        }
      },
      "required": [
        "lang",
        "slug"
      ],
      "additionalProperties": false
    },
    "annotations": {
      "readOnlyHint": true,
      "destructiveHint": false,
      "idempotentHint": true,
      "openWorldHint": false
    },
    "read": {
      "path": "api/series/{lang}/{slug}.json",
      "params": [
        "lang",
        "slug"
      ],
      "notFoundHint": "list_series gives the series of a language."
    }
  },
  {
    "name": "get_tag_timeline",
    "title": "Get a tag timeline",
    "description": "Every published post carrying a tag in the language, newest first.",
    "inputSchema": {
      "type": "object",
      "properties": {
        "lang": {
          "type": "string",
          "enum": [
            "en",
            "es"
          ],
          "description": "Content language. Any other value yields 404."
        },
        "tag": {
          "type": "string",
          "pattern": "^[a-z0-9-]+$",
          "description": "A tag name. Valid values come from getApiIndex."
        }
      },
      "required": [
        "lang",
        "tag"
      ],
      "additionalProperties": false
    },
    "annotations": {
      "readOnlyHint": true,
      "destructiveHint": false,
      "idempotentHint": true,
      "openWorldHint": false
    },
    "read": {
      "path": "api/timeline/{lang}/{tag}.json",
      "params": [
        "lang",
        "tag"
      ],
      "notFoundHint": "get_api_index lists every tag timeline of each language."
    }
  },
  {
    "name": "list_talks",
    "title": "List talks",
    "description": "Every published slide deck (talk) in the language, newest first, with event names and external links.",
    "inputSchema": {
      "type": "object",
      "properties": {
        "lang": {
          "type": "string",
          "enum": [
            "en",
            "es"
          ],
          "description": "Content language. Any other value yields 404."
        }
      },
      "required": [
        "lang"
      ],
      "additionalProperties": false
    },
    "annotations": {
      "readOnlyHint": true,
      "destructiveHint": false,
      "idempotentHint": true,
      "openWorldHint": false
    },
    "read": {
      "path": "api/slides-timeline/{lang}.json",
      "params": [
        "lang"
      ],
      "notFoundHint": ""
    }
  }
];

// The site's root, relative to this module: every file is read from the same site.
const ROOT = new URL("../../", import.meta.url);

// The tools' runtime (fixed; the table above is generated). Every call is checked against the
// tool's input schema, reads one file of this site's API relative to this module's URL, and
// answers an MCP tool result: the file's JSON as text (for search_posts, the post list's
// matching entries), or an error result naming the bad input. A tool never throws.

const SEPARATORS = /[ \t\n\f\r]+/;

const quote = (text) => JSON.stringify(text);

function jsonType(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "boolean":
      return "a boolean";
    case "number":
      return "a number";
    case "string":
      return "a string";
    case "object":
      return "an object";
    default:
      return typeof value;
  }
}

// The first problem of an input, or null: an unknown input (the first in sorted order), then
// each input in the schema's order.
function check(tool, input) {
  const schema = tool.inputSchema;
  const properties = schema.properties;
  const names = Object.keys(properties);
  const required = schema.required ?? [];
  const unknown = Object.keys(input)
    .filter((key) => !Object.hasOwn(properties, key))
    .sort();
  if (unknown.length > 0) {
    const takes = names.length === 0 ? "no input" : names.map((name) => `\`${name}\``).join(", ");
    return `Unknown input ${quote(unknown[0])}: ${tool.name} takes ${takes}.`;
  }
  for (const name of names) {
    const property = properties[name];
    if (!Object.hasOwn(input, name)) {
      if (required.includes(name)) return `Missing input \`${name}\`: ${property.description}`;
      continue;
    }
    const value = input[name];
    if (typeof value !== "string") {
      return `Input \`${name}\` must be a string, not ${jsonType(value)}.`;
    }
    if (property.enum && !property.enum.includes(value)) {
      return `Input \`${name}\` must be one of ${property.enum.join(", ")}, not ${quote(value)}.`;
    }
    if (property.minLength > 0 && value.length === 0) {
      return `Input \`${name}\` must not be empty.`;
    }
    if (property.pattern && !new RegExp(property.pattern, "u").test(value)) {
      return `Input \`${name}\` must match ${property.pattern}, not ${quote(value)}.`;
    }
  }
  return null;
}

// What a call reads: { path, notFound, search } or { error }.
function plan(tool, input) {
  if (input === undefined || input === null) input = {};
  if (typeof input !== "object" || Array.isArray(input)) {
    return { error: `The input must be an object, not ${jsonType(input)}.` };
  }
  const problem = check(tool, input);
  if (problem !== null) return { error: problem };
  const read = tool.read;
  if (read.path !== undefined) {
    let path = read.path;
    for (const param of read.params) path = path.split(`{${param}}`).join(input[param]);
    const last = read.params[read.params.length - 1];
    const notFound =
      last !== undefined && read.notFoundHint
        ? `Input \`${last}\`: ${quote(input[last])} not found (GET /${path} answered 404). ${read.notFoundHint}`
        : `GET /${path} answered 404.`;
    // `index` names a listing, not a series or a tag: nothing to read.
    if (read.params.length > 1 && input[last] === "index") {
      return { error: `Input \`${last}\`: "index" not found (/${path} is the listing, not one). ${read.notFoundHint}`.trimEnd() };
    }
    return { path, notFound, search: null };
  }
  const lang = input.lang;
  const path = lang !== undefined && Object.hasOwn(read.byLang, lang) ? read.byLang[lang] : read.all;
  const words = (input.query ?? "")
    .toLowerCase()
    .split(SEPARATORS)
    .filter((word) => word.length > 0);
  const search = { words, tag: input.tag ?? null, notFoundHint: read.notFoundHint };
  return { path, notFound: `GET /${path} answered 404.`, search };
}

// A tag of any tier: its timeline lists the post whether the tag is in `tags` or `topics`.
function tagged(search, entry) {
  return (
    search.tag === null ||
    ["tags", "topics"].some((name) => Array.isArray(entry?.[name]) && entry[name].includes(search.tag))
  );
}

function matches(search, entry) {
  const field = (name) => (typeof entry?.[name] === "string" ? entry[name] : "");
  const text = `${field("title")}\n${field("description")}`.toLowerCase();
  return tagged(search, entry) && search.words.every((word) => text.includes(word));
}

const success = (text) => ({ content: [{ type: "text", text }] });
const failure = (text) => ({ content: [{ type: "text", text }], isError: true });

async function run(tool, input) {
  try {
    const request = plan(tool, input);
    if (request.error !== undefined) return failure(request.error);
    let response;
    try {
      response = await fetch(new URL(request.path, ROOT), {
        headers: { Accept: "application/json" },
      });
    } catch (error) {
      return failure(`GET /${request.path} failed: ${error.message}`);
    }
    if (response.status === 404) return failure(request.notFound);
    if (!response.ok) return failure(`GET /${request.path} answered ${response.status}.`);
    const text = await response.text();
    if (request.search === null) return success(text);
    let entries;
    try {
      entries = JSON.parse(text);
    } catch (error) {
      return failure(`the post list is not a JSON array: ${error.message}`);
    }
    if (!Array.isArray(entries)) return failure("the post list is not a JSON array");
    // A tag no post of the list carries is a tag the site does not have: an error, not `[]`.
    if (request.search.tag !== null && !entries.some((entry) => tagged(request.search, entry))) {
      return failure(
        `Input \`tag\`: ${quote(request.search.tag)} not found (no post of the list carries it). ${request.search.notFoundHint}`,
      );
    }
    return success(JSON.stringify(entries.filter((entry) => matches(request.search, entry))));
  } catch (error) {
    return failure(`${tool.name} failed: ${error?.message ?? error}`);
  }
}

/** Calls a tool by name without WebMCP: the same result a registered tool gives. */
export function callTool(name, input) {
  const tool = TOOLS.find((candidate) => candidate.name === name);
  if (tool === undefined) return Promise.resolve(failure(`Unknown tool ${quote(name)}.`));
  return run(tool, input);
}

const context = globalThis.document?.modelContext ?? globalThis.navigator?.modelContext;
if (context && typeof context.registerTool === "function") {
  for (const tool of TOOLS) {
    const warn = (error) =>
      console.warn(`content-api: ${tool.name} is not registered: ${error?.message ?? error}`);
    try {
      const registered = context.registerTool({
        name: tool.name,
        title: tool.title,
        description: tool.description,
        inputSchema: tool.inputSchema,
        annotations: tool.annotations,
        execute: (input) => run(tool, input),
      });
      if (registered && typeof registered.then === "function") registered.then(undefined, warn);
    } catch (error) {
      warn(error);
    }
  }
}
