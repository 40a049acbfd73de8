#!/usr/bin/env node
// The `content-api` command of the npm package: runs the prebuilt binary with the same
// arguments, standard streams and exit status.
"use strict";

const { spawn } = require("node:child_process");
const { findBinary } = require("../lib/binary.js");

let binary;
try {
  binary = findBinary();
} catch (error) {
  console.error(`content-api: ${error.message}`);
  process.exit(1);
}

const child = spawn(binary, process.argv.slice(2), { stdio: "inherit" });

// Ctrl-C in a terminal reaches the whole foreground process group, the binary included, so the
// launcher only waits for it: passing SIGINT on would deliver it twice, and content-api takes a
// second Ctrl-C as "stop now". SIGTERM and SIGHUP usually come to this process alone (a process
// manager, a closed terminal), so they are passed on.
process.on("SIGINT", () => {});
for (const signal of ["SIGTERM", "SIGHUP"]) {
  process.on(signal, () => child.kill(signal));
}

child.on("error", (error) => {
  console.error(`content-api: cannot run ${binary}: ${error.message}`);
  process.exit(1);
});

child.on("exit", (code, signal) => {
  if (signal) {
    // End the same way the binary did, so a shell or npm sees the signal, not an exit code.
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
