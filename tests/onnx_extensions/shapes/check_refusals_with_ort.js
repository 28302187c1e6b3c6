#!/usr/bin/env node
// What onnxruntime-node does with each crafted model of validity_cases.cc, against what
// the manifest expects:
//   refuses  the session cannot be created, or the model fails to run
//   accepts  it loads and runs (a valid model, or a rule onnxruntime does not enforce)
//   crashes  the process dies on a signal (onnxruntime does not check the rule)
// Each model runs in its own process (tests/ort/compare_models.js MODEL MODEL: random
// inputs, exit 0 when it runs, 2 when it cannot be loaded or run), so that a crash is
// observed rather than suffered.
//
//   node check_refusals_with_ort.js DIR      (DIR/manifest.json, DIR/<name>.onnx)
//
// Exit 0 when every model behaves as expected, 1 otherwise (the table says which).
'use strict';

const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const dir = process.argv[2];
if (!dir) {
  console.error('usage: check_refusals_with_ort.js DIR');
  process.exit(2);
}
const compare = path.join(__dirname, '..', '..', 'ort', 'compare_models.js');
const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));

function observe(model) {
  const run = spawnSync(process.execPath, [compare, model, model, '--threads', '1'], {
    encoding: 'utf8',
    timeout: 120000,
  });
  if (run.signal) return { behaviour: 'crashes', detail: run.signal };
  const detail = (run.stderr || run.stdout || '').trim().split('\n')[0].slice(0, 160);
  if (run.status === 0) return { behaviour: 'accepts', detail: '' };
  if (run.status === 2) return { behaviour: 'refuses', detail };
  return { behaviour: `exit ${run.status}`, detail };
}

let failures = 0;
for (const entry of manifest) {
  const { behaviour, detail } = observe(path.join(dir, `${entry.name}.onnx`));
  const ok = behaviour === entry.onnxruntime;
  if (!ok) failures += 1;
  const kind = entry.valid ? 'valid  ' : 'invalid';
  const note = entry.note ? ` (${entry.note})` : '';
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${kind} ${entry.name}: onnxruntime ${behaviour}, expected ${entry.onnxruntime}` +
              `${note}${ok || !detail ? '' : ` -- ${detail}`}`);
}
const invalid = manifest.filter((e) => !e.valid);
const differ = invalid.filter((e) => e.onnxruntime !== 'refuses');
console.log(`${manifest.length} models: ${invalid.length} invalid (onnxruntime does not refuse ${differ.length} of ` +
            `them: ${differ.map((e) => e.name).join(', ') || 'none'}), ${manifest.length - invalid.length} valid`);
process.exit(failures === 0 ? 0 : 1);
