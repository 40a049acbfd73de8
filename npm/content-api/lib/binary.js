// Finds the content-api binary for this machine: the one in the platform package the package
// manager installed beside this launcher (an optional dependency, chosen by its `os`, `cpu` and
// `libc` fields), or the one CONTENT_API_BINARY names. Nothing is downloaded, ever. The Astro
// integration (`<scope>/<integration>`) calls it too, as `<scope>/<launcher>/binary`.
"use strict";

const fs = require("node:fs");
const path = require("node:path");
const { scope, launcher, platforms } = require("../platforms.json");

/** The launcher's package name: `@content-api/cli`. */
const LAUNCHER_PACKAGE = `${scope}/${launcher}`;

/** The name of the package that holds `platform`'s binary: `@content-api/cli-linux-x64-gnu`. */
function platformPackage(platform) {
  return `${LAUNCHER_PACKAGE}-${platform.package}`;
}

/** The binary's file name in `platform`'s package: `content-api.exe` on Windows. */
function binaryName(platform) {
  return platform.os === "win32" ? "content-api.exe" : "content-api";
}

/** "glibc", "musl", or null off Linux. The same test as npm's own `libc` field uses. */
function libcFamily() {
  if (process.platform !== "linux") return null;
  // The report would look up the network interfaces' names unless told not to.
  if (process.report) process.report.excludeNetwork = true;
  const report = process.report?.getReport?.();
  if (report?.header?.glibcVersionRuntime) return "glibc";
  // Node built against musl reports no glibc version; so does a report that failed.
  const shared = report?.sharedObjects ?? [];
  if (shared.some((object) => /libc\.musl-|ld-musl-/.test(object))) return "musl";
  return fs.existsSync("/etc/alpine-release") ? "musl" : "glibc";
}

/** The platform entry this machine matches, or undefined. */
function currentPlatform() {
  const libc = libcFamily();
  return platforms.find(
    (entry) =>
      entry.os === process.platform &&
      entry.cpu === process.arch &&
      (entry.libc === undefined || entry.libc === libc),
  );
}

function describeMachine() {
  const libc = libcFamily();
  return `${process.platform}-${process.arch}${libc ? ` (${libc})` : ""}`;
}

const FROM_SOURCE =
  "Build it from source instead: `cargo install --locked content-api` (Rust 1.90 or later), " +
  "then set CONTENT_API_BINARY to the binary's path, or call it directly.";

/** Throws, naming what is wrong, unless CONTENT_API_BINARY names a file (links followed). */
function checkOverride(override) {
  const named = `CONTENT_API_BINARY is set to ${override}`;
  let found;
  try {
    found = fs.statSync(override);
  } catch (error) {
    const why = {
      ENOENT: "which does not exist (nor does what a link there points to)",
      ELOOP: "a link that loops (it leads back to itself): point it at the binary itself",
      EACCES: "which cannot be reached: a folder on its way may not be entered",
      ENOTDIR: "which does not exist: a part of the path is not a folder",
    }[error.code];
    throw new Error(`${named}, ${why ?? `which cannot be read (${error.message})`}.`);
  }
  if (!found.isFile()) {
    throw new Error(`${named}, which is not a file: name the content-api binary itself.`);
  }
}

/** The absolute path of the binary to run; throws an Error whose message says what to do. */
function findBinary() {
  const override = process.env.CONTENT_API_BINARY;
  if (override) {
    checkOverride(override);
    return path.resolve(override);
  }
  const platform = currentPlatform();
  const supported = platforms
    .map((entry) => `${entry.os}-${entry.cpu}${entry.libc ? ` (${entry.libc})` : ""}`)
    .join(", ");
  if (!platform) {
    throw new Error(
      `there is no prebuilt binary for this machine, ${describeMachine()}. ` +
        `Prebuilt binaries exist for ${supported}. ${FROM_SOURCE}`,
    );
  }
  const name = platformPackage(platform);
  let packageJson;
  try {
    packageJson = require.resolve(`${name}/package.json`);
  } catch {
    throw new Error(
      `the package ${name}, which holds the binary for ${describeMachine()}, is not installed. ` +
        `It is an optional dependency of ${LAUNCHER_PACKAGE}, which a package manager skips ` +
        "without a word when it cannot fetch it. Installed from tarballs (before publication, " +
        "or vendored)? Install its tarball in the same command as the launcher's; with pnpm, " +
        "map both packages to their tarballs (`file:`) in the `overrides` of " +
        "pnpm-workspace.yaml (pnpm 11 no longer reads package.json's `pnpm` field). Left out " +
        "otherwise? Install again without --omit=optional / --no-optional / --ignore-optional, " +
        "and keep the lockfile's entry for it (a lockfile made on another platform may lack " +
        `it). The README's "From tarballs" gives the exact lines. ${FROM_SOURCE}`,
    );
  }
  const binary = path.join(path.dirname(packageJson), binaryName(platform));
  if (!fs.existsSync(binary)) {
    throw new Error(`${name} is installed but holds no binary at ${binary}: reinstall it.`);
  }
  return binary;
}

module.exports = {
  findBinary,
  currentPlatform,
  libcFamily,
  platformPackage,
  binaryName,
  LAUNCHER_PACKAGE,
};
