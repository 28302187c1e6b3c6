#!/usr/bin/env node
// onnxruntime's own offline graph optimization, timed through onnxruntime-node (issue 6).
//
// What is timed. Creating an InferenceSession runs, in order: loading the model, then
// Initialize = registering the execution providers, inlining functions, partitioning,
// the graph transformers of the chosen level, then finalizing the session state
// (allocation planning, kernels, initializers). Only the part between "Initializing
// session." and the check that every node has an execution provider ("Node placements")
// depends on the optimization level in a way that is onnxruntime's optimizer; the
// allocation planner that follows grows quadratically with the node count on graphs with
// dynamic shapes (16k nodes: seconds; 100k nodes: over 15 minutes) and runs on a
// different graph at each level, so "whole session at 'extended' − whole session at
// 'disabled'" becomes negative from 64 decoder layers on (see bench/RESULTS.md).
// So onnxruntime's optimization time here is
//     phase('extended') − phase('disabled'),
//     phase = time from "Initializing session." to "Node placements"
// read from onnxruntime's own verbose log timestamps. What 'disabled' still runs there
// (provider registration, partitioning, the transformers every level runs) cancels out.
//
// Usage: node bench/ort_optimize_time.js MODEL [--reps N] [--level extended]
//                                        [--warmup MODEL] [--optimized-first]
//   --reps N    timed pairs (default 5), alternating the order (disabled then optimized,
//               optimized then disabled, ...) so that a drift of machine load hits both.
//   --level L   the optimized level (default 'extended'; 'basic' or 'all' also work).
//   --warmup M  the model of the untimed warm-up session (default MODEL).
//   --optimized-first  start the alternation with the optimized level.
//   --whole-session  also let each session finish and report the time of the whole
//               InferenceSession.create (load included): the definition this replaces,
//               for comparison on models small enough for it.
// Each session runs in a fresh Node.js process: an untimed, quiet warm-up session first
// (one-time initialization of onnxruntime: environment, kernel registries), then the
// timed session with verbose logging to a file. The process is killed as soon as its log
// reaches "Node placements" (the rest of the session is not needed), so the benchmark
// also works at 100k nodes. Sessions: CPU execution provider, 1 intra-op and 1 inter-op
// thread, sequential.
// Prints one JSON line: {"model", "reps", "level", "disabled_ms": [...], "optimized_ms":
// [...], "diff_ms": [...] (optimized − disabled, per pair), "median_disabled_ms",
// "median_optimized_ms", "median_diff_ms", "nodes_disabled", "nodes_optimized" (the node
// counts onnxruntime logs after each level, main graph), "max_rss_kb" (the largest peak
// resident memory of a session process, read when its log reached the end of the phase),
// "baseline_rss_kb" (resident memory of such a process before any session)}; with
// --whole-session also "whole_disabled_ms", "whole_optimized_ms", "whole_diff_ms".
'use strict';
const childProcess = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const ORT_PATH = path.join(__dirname, '..', 'node_modules', 'onnxruntime-node');
const START_MARKER = 'Initializing session.';
const END_MARKER = 'Node placements';
const POLL_MS = 20;

function parseArgs(argv) {
  const a = { model: null, reps: 5, level: 'extended', warmup: null, optimizedFirst: false,
              wholeSession: false };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--reps') a.reps = Number(argv[++i]);
    else if (argv[i] === '--level') a.level = argv[++i];
    else if (argv[i] === '--warmup') a.warmup = argv[++i];
    else if (argv[i] === '--optimized-first') a.optimizedFirst = true;
    else if (argv[i] === '--whole-session') a.wholeSession = true;
    else if (!a.model && !argv[i].startsWith('-')) a.model = argv[i];
    else throw new Error(`unexpected argument ${argv[i]}`);
  }
  if (!a.model || !(a.reps >= 1) || !['basic', 'extended', 'all'].includes(a.level)) {
    console.error('usage: node bench/ort_optimize_time.js MODEL [--reps N] [--level extended] ' +
                  '[--warmup MODEL] [--optimized-first] [--whole-session]');
    process.exit(2);
  }
  return a;
}

function median(xs) {
  const s = [...xs].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

// The session process: a quiet warm-up session, then the timed one, logging verbosely to
// stderr (which the parent points at a file). Writes its resident memory before any
// session on stdout, and, once the timed session exists (its log is complete then), the
// time its creation took (load included) and "session_created"; then waits to be
// killed, so that the parent reads its peak memory from /proc before it exits.
async function sessionProcess(model, level, warmup) {
  const ort = require(ORT_PATH);
  const options = (lvl, severity) => ({
    executionProviders: ['cpu'], graphOptimizationLevel: lvl, executionMode: 'sequential',
    intraOpNumThreads: 1, interOpNumThreads: 1, logSeverityLevel: severity, logVerbosityLevel: 0,
  });
  process.stdout.write(`baseline_rss_kb=${Math.round(process.memoryUsage().rss / 1024)}\n`);
  const quiet = await ort.InferenceSession.create(warmup, options('disabled', 3));
  await quiet.release();
  const t0 = process.hrtime.bigint();
  await ort.InferenceSession.create(model, options(level, 0));
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  process.stdout.write(`create_ms=${ms}\nsession_created\n`);
  setInterval(() => {}, 1 << 30);
}

// onnxruntime's log lines start with "YYYY-MM-DD HH:MM:SS.fffffffff"; returns ms of day.
function timestampMs(line) {
  const m = /\d{4}-\d\d-\d\d (\d\d):(\d\d):(\d\d)\.(\d+) \[/.exec(line);
  if (!m) return null;
  return ((Number(m[1]) * 60 + Number(m[2])) * 60 + Number(m[3])) * 1000 + Number(`0.${m[4]}`) * 1000;
}

function peakRssKb(pid) {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : null;
  } catch (e) {
    return null;  // the process has already exited
  }
}

// The session process running now and its log's folder. A session process cannot
// notice that this one is gone while onnxruntime holds its thread (at 100k nodes, for
// many minutes after the phase), so it is killed when this one is stopped.
let running = null;
function stopRunningChild() {
  if (!running) return;
  running.child.kill('SIGKILL');
  fs.rmSync(running.folder, { recursive: true, force: true });
}
process.on('exit', stopRunningChild);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    stopRunningChild();
    process.exit(128 + os.constants.signals[signal]);
  });
}

// Runs one session process at `level` and returns {ms, nodes, max_rss_kb,
// baseline_rss_kb, whole_ms} (whole_ms: with --whole-session only).
function timedPhase(args, level) {
  const logPath = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ort-phase-')), 'ort.log');
  const log = fs.openSync(logPath, 'w+');
  const child = childProcess.spawn(process.execPath,
    [__filename, '--session-process', args.model, level, args.warmup || args.model],
    { stdio: ['ignore', 'pipe', log] });
  running = { child, folder: path.dirname(logPath) };
  return new Promise((resolve, reject) => {
    let text = '', offset = 0, stdout = '', phase = null, done = false;
    const finish = (error, result) => {
      if (done) return;
      done = true;
      clearInterval(timer);
      child.kill('SIGKILL');
      running = null;
      fs.closeSync(log);
      fs.rmSync(path.dirname(logPath), { recursive: true, force: true });
      if (error) reject(error); else resolve(result);
    };
    // Reads what the log has gained; once it holds both markers, records the phase and
    // the peak memory of the process at that moment.
    const readLog = () => {
      const chunk = Buffer.alloc(1 << 16);
      for (let n; (n = fs.readSync(log, chunk, 0, chunk.length, offset)) > 0; offset += n) {
        text += chunk.toString('utf8', 0, n);
      }
      if (phase) return;
      const lines = text.split('\n');
      const start = lines.findIndex((l) => l.includes(START_MARKER));
      const end = lines.findIndex((l, i) => i > start && start >= 0 && l.includes(END_MARKER));
      if (start < 0 || end < 0) return;
      const placed = lines.slice(end).map((l) => /Number of nodes: (\d+)/.exec(l)).find((m) => m);
      let ms = timestampMs(lines[end]) - timestampMs(lines[start]);
      if (ms < 0) ms += 24 * 3600 * 1000;  // across midnight
      phase = { ms, nodes: placed ? Number(placed[1]) : null, max_rss_kb: peakRssKb(child.pid) };
    };
    const settle = () => {
      readLog();
      const created = stdout.includes('session_created');  // the log is complete then
      if (phase && (created || !args.wholeSession)) {
        const base = /baseline_rss_kb=(\d+)/.exec(stdout);
        const whole = /create_ms=([\d.]+)/.exec(stdout);
        finish(null, { ...phase, baseline_rss_kb: base ? Number(base[1]) : null,
                       whole_ms: whole ? Number(whole[1]) : null });
      } else if (created && !phase) {
        // onnxruntime's messages changed: this script must be updated.
        finish(new Error(`the verbose log of onnxruntime's session at '${level}' has no ` +
                         `"${START_MARKER}" followed by "${END_MARKER}"`));
      }
    };
    const timer = setInterval(settle, POLL_MS);
    child.stdout.on('data', (d) => { stdout += d; settle(); });
    child.on('exit', (code, signal) => {
      if (done) return;  // killed by finish()
      settle();
      if (done) return;
      const tail = text.split('\n').filter((l) => l.trim()).slice(-5).join('\n');
      finish(new Error(`onnxruntime session process at '${level}' ended (${signal || `exit ${code}`}) ` +
                       `before "${END_MARKER}"${tail ? `:\n${tail}` : ''}`));
    });
  });
}

async function main() {
  if (process.argv[2] === '--session-process') {
    await sessionProcess(process.argv[3], process.argv[4], process.argv[5]);
    return;
  }
  const args = parseArgs(process.argv.slice(2));
  // Per level: phase times, whole-session times (--whole-session), the logged node count.
  const runs = { disabled: { ms: [], whole: [] }, optimized: { ms: [], whole: [] } };
  let maxRss = 0, baseline = Infinity;
  const run = async (key) => {
    const r = await timedPhase(args, key === 'disabled' ? 'disabled' : args.level);
    runs[key].ms.push(r.ms);
    runs[key].whole.push(r.whole_ms);
    runs[key].nodes = r.nodes;
    maxRss = Math.max(maxRss, r.max_rss_kb || 0);
    if (r.baseline_rss_kb) baseline = Math.min(baseline, r.baseline_rss_kb);
  };
  for (let r = 0; r < args.reps; r++) {
    const order = (r + (args.optimizedFirst ? 1 : 0)) % 2 === 0 ? ['disabled', 'optimized'] : ['optimized', 'disabled'];
    for (const key of order) await run(key);
  }
  const { disabled, optimized } = runs;
  const diff = optimized.ms.map((o, i) => o - disabled.ms[i]);
  const result = {
    model: path.basename(args.model), reps: args.reps, level: args.level,
    disabled_ms: disabled.ms, optimized_ms: optimized.ms, diff_ms: diff,
    median_disabled_ms: median(disabled.ms), median_optimized_ms: median(optimized.ms),
    median_diff_ms: median(diff), nodes_disabled: disabled.nodes, nodes_optimized: optimized.nodes,
    max_rss_kb: maxRss, baseline_rss_kb: Number.isFinite(baseline) ? baseline : null,
  };
  if (args.wholeSession) {
    result.whole_disabled_ms = disabled.whole;
    result.whole_optimized_ms = optimized.whole;
    result.whole_diff_ms = optimized.whole.map((o, i) => o - disabled.whole[i]);
  }
  console.log(JSON.stringify(result));
}

main().catch((e) => { console.error(e.stack || String(e)); process.exit(3); });
