// Types of the Astro integration `@content-api/astro` (index.mjs): `integrations: [contentApi()]`.
import type { AstroIntegration } from "astro";

/** Where the site's settings are and how `astro dev` runs the tool. The settings themselves
 * are the site's `watch.toml`, read by the binary. */
export interface ContentApiOptions {
  /** The site's `watch.toml`, relative to the project root (default: `watch.toml` there). */
  config?: string;
  /** The content folder, when not `watch.toml`'s `content_dir`. */
  content?: string;
  /** `astro dev` only: publish drafts too. */
  drafts?: boolean;
  /** `astro dev` only: publish scheduled content too. */
  future?: boolean;
}

/** The integration: the API served by `astro dev` on the site's own origin, and written into
 * the output by `astro build` (with Astro's `site` as its base URL, when set). */
export default function contentApi(options?: ContentApiOptions): AstroIntegration;
