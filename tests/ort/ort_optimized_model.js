#!/usr/bin/env node
// Saves the graph onnxruntime's own optimizer produces for a model, so that tests and
// benchmarks can compare onnxopt's result with it (node counts, Transpose counts).
//
//   node tests/ort/ort_optimized_model.js MODEL OUTPUT [--level basic|extended|all]
//
// The session runs on the CPU provider with onnxruntime's offline-optimization setting
// `optimizedModelFilePath`: onnxruntime writes the graph after its transformers of the
// level (default 'basic', the provider-independent rewrites). Levels above 'basic' may
// write contrib operators (com.microsoft) that only onnxruntime runs.
//
// Exit codes: 0 written, 2 usage error or the model cannot be loaded (message names it).
// Dependencies: onnxruntime-node only.
'use strict';

const fs = require('fs');

const LEVELS = ['disabled', 'basic', 'extended', 'all'];

function usage(message) {
  process.stderr.write(`${message}\nusage: ort_optimized_model.js MODEL OUTPUT [--level ${LEVELS.join('|')}]\n`);
  process.exit(2);
}

async function main() {
  const args = process.argv.slice(2);
  const positional = [];
  let level = 'basic';
  for (let i = 0; i < args.length; ++i) {
    if (args[i] === '--level') {
      level = args[++i];
      if (!LEVELS.includes(level)) usage(`unknown level '${level}'`);
    } else if (args[i].startsWith('--')) {
      usage(`unknown option '${args[i]}'`);
    } else {
      positional.push(args[i]);
    }
  }
  if (positional.length !== 2) usage('expected MODEL and OUTPUT');
  const [model, output] = positional;
  if (!fs.existsSync(model)) usage(`cannot read '${model}'`);
  const ort = require('onnxruntime-node');
  try {
    await ort.InferenceSession.create(model, {
      executionProviders: ['cpu'],
      graphOptimizationLevel: level,
      optimizedModelFilePath: output,
      logSeverityLevel: 3,
    });
  } catch (error) {
    process.stderr.write(`onnxruntime cannot load '${model}': ${error.message}\n`);
    process.exit(2);
  }
  if (!fs.existsSync(output)) {
    process.stderr.write(`onnxruntime wrote no optimized model to '${output}'\n`);
    process.exit(2);
  }
}

main();
