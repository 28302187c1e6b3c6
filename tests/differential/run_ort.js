#!/usr/bin/env node
// The onnxruntime-node side of the differential kernel test (run_differential.py): runs
// every model of a manifest in this one process and writes what each returned.
//
//   node tests/differential/run_ort.js MANIFEST.json RESULTS.json
//
// MANIFEST: [{"id": STRING, "model": PATH[, "out_dir": DIR]}, ...]; every model has no
// graph input (the case's inputs are initializers). With out_dir, numeric outputs are
// written there as raw files (NAME_INDEX.bin) instead of inline (large models). Each runs with graph optimizations disabled (so that
// onnxruntime evaluates the node as written, without constant folding or fusions), one
// thread, on the CPU provider.
// RESULTS: one JSON object a line, appended as soon as each model has run (so that the
// caller knows where a crash of onnxruntime happened and can resume after it):
//   {"id", "ok": true, "outputs": [{"name", "type", "dims", "data"}]} or
//   {"id", "ok": false, "stage": "load" | "run", "error": MESSAGE}, in manifest order.
// "data" is base64 of the little-endian element bytes (bool as one byte per element),
// or a list of strings for string tensors; with out_dir, "file" names the raw file.
// Exit: 0 when every model was attempted (failures are results), 2 on a usage error.
'use strict';

const fs = require('fs');
const path = require('path');

async function runOne(ort, entry) {
  let session;
  try {
    session = await ort.InferenceSession.create(path.resolve(entry.model), {
      graphOptimizationLevel: 'disabled', executionProviders: ['cpu'], logSeverityLevel: 4,
      intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential',
    });
  } catch (err) {
    return { id: entry.id, ok: false, stage: 'load', error: String(err.message || err) };
  }
  try {
    const results = await session.run({});
    const outputs = session.outputNames.map((name, index) => {
      const t = results[name];
      const out = { name, type: t.type, dims: Array.from(t.dims, Number) };
      if (t.type === 'string') {
        out.data = Array.from(t.data);
      } else {
        const bytes = Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength);
        if (entry.out_dir) {
          out.file = path.join(entry.out_dir, `output_${index}.bin`);
          fs.writeFileSync(out.file, bytes);
        } else {
          out.data = bytes.toString('base64');
        }
      }
      return out;
    });
    return { id: entry.id, ok: true, outputs };
  } catch (err) {
    return { id: entry.id, ok: false, stage: 'run', error: String(err.message || err) };
  } finally {
    await session.release();
  }
}

async function main() {
  const [manifestFile, resultsFile] = process.argv.slice(2);
  if (!manifestFile || !resultsFile) {
    console.error('usage: run_ort.js MANIFEST.json RESULTS.json');
    return 2;
  }
  const ort = require('onnxruntime-node');
  const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
  for (const entry of manifest) if (entry.out_dir) fs.mkdirSync(entry.out_dir, { recursive: true });
  for (const entry of manifest) fs.appendFileSync(resultsFile, JSON.stringify(await runOne(ort, entry)) + '\n');
  return 0;
}

main().then((code) => { process.exitCode = code; }, (err) => {
  console.error(`run_ort: ${err.stack || err}`);
  process.exitCode = 2;
});
