#!/usr/bin/env node
// The `content-api` command of the npm package: runs the prebuilt binary with the same
// arguments, standard streams, signals and end (its exit status, or the signal it died of).
// On Windows it runs content-api.exe directly (no shell: the arguments reach it as given).
"use strict";

const { spawn } = require("node:child_process");
const { constants } = require("node:os");
const { findBinary } = require("../lib/binary.js");

let binary;
try {
  binary = findBinary();
} catch (error) {
  console.error(`content-api: ${error.message}`);
  process.exit(1);
}

// Every signal a parent may send to stop or poke a process is passed on, as foreground-child
// does: a tool that stops its child with SIGINT, or a process manager with SIGQUIT, stops the
// binary. Ctrl-C in a terminal reaches the binary twice then (the terminal signals the whole
// process group); the binary takes two within a moment as one. Not passed on: SIGKILL and
// SIGSTOP (no process can catch them; see above for SIGKILL), the job-control stops (Ctrl-Z
// reaches the binary from the terminal, and this process must stop too), and the faults
// (SIGSEGV...), which are this process's own.
const FORWARDED = [
  "SIGINT",
  "SIGTERM",
  "SIGHUP",
  "SIGQUIT",
  "SIGUSR1",
  "SIGUSR2",
  "SIGALRM",
  "SIGVTALRM",
  "SIGPROF",
  "SIGXCPU",
  "SIGXFSZ",
  "SIGABRT",
  "SIGTRAP",
  "SIGSYS",
  "SIGPWR",
  "SIGCONT",
  "SIGWINCH",
];
// Windows has no signals to pass on: Ctrl-C, Ctrl-Break and closing the console reach every
// process of the console, the binary included, which stops cleanly on its own. Passing them on
// would be harmful: Node "kills" a child on Windows with TerminateProcess, whatever the signal.
// This process only keeps living until the binary ends, to end with its exit code.
const CONSOLE_EVENTS = ["SIGINT", "SIGBREAK", "SIGHUP"];
const WINDOWS = process.platform === "win32";
// Listening before the binary starts: a signal sent as soon as it runs is passed on too.
let child;
const listeners = new Map();
for (const signal of WINDOWS ? CONSOLE_EVENTS : FORWARDED) {
  if (constants.signals[signal] === undefined) continue; // not on this system
  const forward = WINDOWS
    ? () => {}
    : () => {
        if (!child) return dieOf(signal);
        try {
          child.kill(signal);
        } catch {
          // The binary is gone already: its exit ends this process.
        }
      };
  process.on(signal, forward);
  listeners.set(signal, forward);
}

// Some failures to start are thrown rather than emitted (on Windows, a file that is no
// program: EFTYPE); both are said the same way.
function cannotRun(error) {
  console.error(`content-api: cannot run ${binary}: ${error.message}`);
  process.exit(1);
}

try {
  child = spawn(binary, process.argv.slice(2), {
    stdio: "inherit",
    // The binary stops by itself once this process is gone, even by SIGKILL, which cannot be
    // passed on: it watches its parent while that is this pid (src/cli/launcher.rs).
    env: { ...process.env, CONTENT_API_LAUNCHER_PID: String(process.pid) },
  });
} catch (error) {
  cannotRun(error);
}

child.on("error", cannotRun);

child.on("exit", (code, signal) => {
  // (On Windows `signal` is always null: an ended process has an exit code only.)
  if (signal) {
    dieOf(signal);
    return;
  }
  process.exit(code ?? 1);
});

/** Ends this process by `signal`, as the binary ended, so a shell or npm sees the signal. */
function dieOf(signal) {
  for (const [name, forward] of listeners) process.removeListener(name, forward);
  // Node ignores SIGPIPE from its start; a listener added and removed puts back the default
  // action (libuv restores it when a signal's last listener goes), for every signal alike.
  // (SIGKILL and SIGSTOP take no listener, and need none.)
  const noop = () => {};
  try {
    process.on(signal, noop);
    process.removeListener(signal, noop);
  } catch {}
  process.kill(process.pid, signal);
  // Still here (a signal whose default action is not to end): the code a shell would give.
  setTimeout(() => process.exit(128 + (constants.signals[signal] ?? 0)), 1000);
}
