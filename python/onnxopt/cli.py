"""`python3 -m onnxopt.cli optimize MODEL [-o] OUTPUT --passes PATH[:PATH...]`.

The C++ command line hands `onnxopt optimize ... --passes` to this module: it loads the
declarative rule files (onnxopt.fusion.load_passes), compiles the registered rules, and
optimizes with them next to the selected built-in patterns. A rule file that fails to load,
and a rule that fails while it compiles or runs (an invalid pattern, an exception in
meet_requirements or replacement), is reported as FILE:LINE: message, with exit status 2;
usage errors exit with 1, as in the C++ command line.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
import traceback

import onnxopt
from onnxopt import fusion


class _Usage(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise _Usage(message)


def _rule_location(error: BaseException, paths) -> str:
    """FILE:LINE of the innermost frame in a rule file (or of a SyntaxError, or the pattern
    method a PatternError names)."""
    if isinstance(error, SyntaxError) and error.filename:
        return f"{error.filename}:{error.lineno}"
    if getattr(error, "rule_location", ""):
        return error.rule_location
    roots = [os.path.realpath(p) for p in paths]
    location = ""
    for frame in traceback.extract_tb(error.__traceback__):
        real = os.path.realpath(frame.filename)
        if any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in roots):
            location = f"{frame.filename}:{frame.lineno}"
    return location


def _select_rules(selection: str, rules: list):
    """The built-in part of a --patterns selection, and the rules it keeps.

    NAME is a rule's pattern name (Pass/pattern, or Pass/a|b for the alternatives one pass
    groups) or a pass name (all its patterns). The loaded rules run but for those an item
    "-NAME" excludes ("+NAME" changes nothing), unless the selection names rules bare, as in
    "A,B" (exactly these): then only those run. The other items select the built-in patterns
    as without --passes ("default" when none is left, "none" when the rules were named bare),
    so that "--patterns none" runs the rules alone."""
    kept, named_bare, excluded = [], set(), set()
    for item in selection.split(","):
        bare = item.lstrip("+-")
        named = {r.name for r in rules if bare in (r.name, r.name.split("/", 1)[0])}
        if not named:
            kept.append(item)
        elif item.startswith("-"):
            excluded |= named
        elif not item.startswith("+"):
            named_bare |= named
    chosen = [r for r in rules if (not named_bare or r.name in named_bare) and r.name not in excluded]
    return ",".join(kept) or ("none" if named_bare else "default"), chosen


def optimize(argv) -> int:
    parser = _Parser(prog="onnxopt optimize", add_help=False)
    parser.add_argument("model")
    parser.add_argument("positional_output", nargs="?")  # OUTPUT as a second argument, as in C++
    parser.add_argument("-o", "--output")
    parser.add_argument("--passes", default="")
    parser.add_argument("--patterns", default="default")
    parser.add_argument("--no-fold", action="store_true")
    parser.add_argument("--fold-dequantize", action="store_true")
    parser.add_argument("--max-iter", type=int, default=-1)
    parser.add_argument("--keep-initializer-inputs", action="store_true")
    parser.add_argument("--overwrite-input-shape", action="append", default=[])
    parser.add_argument("--dim", action="append", default=[])
    # The C++ command line passes these as plain numbers (the suffixes K, M, G are its job),
    # and always the tensor size limit in force.
    parser.add_argument("--max-tensor-bytes", type=int, default=None)
    parser.add_argument("--fold-size-limit", type=int, default=None)
    parser.add_argument("--fold-work-limit", type=int, default=None)
    parser.add_argument("--external-data-threshold", type=int, default=None)
    parser.add_argument("--keep", action="append", default=[])
    parser.add_argument("--record", default="")
    parser.add_argument("--report-json", default="")
    parser.add_argument("--report-html", default="")
    parser.add_argument("--check", type=int, default=0)
    parser.add_argument("--check-atol", type=float, default=None)
    parser.add_argument("--check-rtol", type=float, default=None)
    parser.add_argument("--report", action="store_true")
    parser.add_argument("-q", "--quiet", action="store_true")
    # "--patterns -A" (every default pattern but A) is a value, not an option.
    argv = list(argv)
    for i in range(len(argv) - 1):
        if argv[i] == "--patterns":
            argv[i:i + 2] = [f"--patterns={argv[i + 1]}"]
            break
    try:
        args = parser.parse_args(argv)
        if args.positional_output is not None:
            if args.output is not None:
                raise _Usage(f"two outputs: -o {args.output} and {args.positional_output}")
            args.output = args.positional_output
        if args.output is None:
            raise _Usage("missing -o OUTPUT")
        if args.max_iter != -1 and args.max_iter < 1:
            raise _Usage(f"--max-iter expects a positive integer, got '{args.max_iter}'")
        for option, value in (("--max-tensor-bytes", args.max_tensor_bytes),
                              ("--external-data-threshold", args.external_data_threshold)):
            if value is not None and value < 1:
                raise _Usage(f"{option} expects a positive number of bytes, got '{value}'")
        try:
            onnxopt._check_arguments(args.check, args.check_atol, args.check_rtol,
                                     tolerances_need_check="--check-atol and --check-rtol need --check N")
            fold = onnxopt._fold_options(not args.no_fold, args.fold_size_limit, args.fold_work_limit,
                                         args.fold_dequantize)
            # The C++ command line's parser: the same spellings, the same messages.
            input_shapes, dims = onnxopt._builder.parse_input_shape_settings(args.overwrite_input_shape, args.dim)
        except (ValueError, onnxopt.Error) as e:
            raise _Usage(str(e)) from e
    except _Usage as e:
        print(f"onnxopt optimize: {e} (with --passes, the options are -o, --passes, --patterns, --no-fold, "
              f"--fold-dequantize, --fold-size-limit, --fold-work-limit, --max-iter, --keep-initializer-inputs, "
              f"--overwrite-input-shape, --dim, --keep, --external-data-threshold, --record, --report-json, "
              f"--report-html, --check, --check-atol, --check-rtol, --check-with, --report, -q)", file=sys.stderr)
        return 1
    if args.max_tensor_bytes is not None:
        onnxopt.set_max_tensor_bytes(args.max_tensor_bytes)
    paths = [p for p in (args.passes or os.environ.get("ONNXOPT_PY_PASS_PATH", "")).split(os.pathsep) if p]
    try:
        fusion.load_passes(paths)
    except (FileNotFoundError, ValueError) as e:
        print(f"onnxopt optimize: --passes: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # a broken rule file: say where
        location = _rule_location(e, paths) or ":".join(paths)
        print(f"{location}: error: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    try:
        builtin_selection, rules = _select_rules(args.patterns, fusion.registered_patterns())
        patterns = onnxopt.standard_patterns(builtin_selection) + rules
        # As the C++ command line: an IR < 4 model's initializers listed among its inputs are
        # constants unless asked otherwise.
        builder = onnxopt.GraphBuilder(args.model, keep_initializer_inputs=args.keep_initializer_inputs)
        # The model as loaded: what the records are stamped with (replay checks it, then
        # specialises the model as recorded) and what the page shows as before.
        specialised = bool(input_shapes or dims)
        # The records of the rewrite file and of the page name the nodes they remove.
        describe_records = bool(args.record or args.report_html)
        loaded = builder.to_model_bytes() if describe_records or args.check or specialised else b""
        fingerprint = onnxopt.model_fingerprint(loaded) if args.record else ""
        if specialised:
            # A model the settings contradict is a usage error, as in C++: the model itself
            # loaded above.
            try:
                builder = onnxopt.GraphBuilder(loaded, input_shapes=input_shapes, dims=dims)
            except onnxopt.ModelError as e:
                print(f"onnxopt optimize: {e}", file=sys.stderr)
                return 1
        # The model optimized (so specialised): what the records were made on and what
        # --check compares the result with.
        original = builder.to_model_bytes() if specialised and (describe_records or args.check) else loaded
        # The reports list why candidates were rejected, as in C++.
        graph = onnxopt.GraphGraph(builder, patterns=patterns, registered="none",
                                   collect_no_match=args.report or bool(args.report_json), keep=args.keep, **fold)
        records, report = graph.optimize(report=True, max_iter=args.max_iter)
        del graph
        if describe_records:
            onnxopt.describe_removed_nodes(original, records)
    except Exception as e:  # a rule that fails while compiling or running: say where
        location = _rule_location(e, paths)
        if not location and isinstance(e, onnxopt.Error):
            raise  # the model's, or the optimizer's: main reports it
        print(f"{location or ':'.join(paths)}: error: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    # The rewrite file and the JSON report are written first and renamed once the model is
    # saved: all or none.
    outputs = []
    if args.record:
        outputs.append((args.record, onnxopt.serialize_rewrites(records, fingerprint, input_shapes, dims)))
    if args.report_json:
        outputs.append((args.report_json, report.to_json(input_shapes, dims).encode()))
    # The optimized model serialized once for the page and --check (save leaves the builder as it is).
    optimized = builder.to_model_bytes() if args.report_html else b""
    if args.report_html:
        page = onnxopt.render_report_html(loaded, optimized, records, report, args.model, args.patterns,
                                          input_shapes, dims)
        outputs.append((args.report_html, page.encode()))
    written = []  # (temporary, final)
    try:
        for path, data in outputs:
            temporary = f"{path}.tmp{os.getpid()}"
            written.append((temporary, path))
            with open(temporary, "wb") as f:
                f.write(data)
        builder.save(args.output, external_data_threshold=args.external_data_threshold)
        for temporary, path in written:
            os.replace(temporary, path)
    except OSError as e:
        final = dict(written).get(e.filename, e.filename or args.output)  # the file meant, not its temporary
        print(f"onnxopt optimize: cannot write '{final}': {e.strerror}", file=sys.stderr)
        return 2
    finally:
        for temporary, _ in written:
            with contextlib.suppress(FileNotFoundError):
                os.remove(temporary)
    if not args.quiet:
        names = {}
        for record in records:
            names[record.name] = names.get(record.name, 0) + 1
        applied = ", ".join(f"{n} {c}" for n, c in names.items())
        if specialised:
            print("input shapes: " + onnxopt._builder.describe_input_shape_settings(input_shapes, dims))
        print(f"{len(rules)} declarative rule pattern(s) from {len(fusion.registered_pass_names())} pass(es); "
              f"rewrites: {len(records)}" + (f" ({applied})" if applied else "")
              + f"; {time.perf_counter() - start:.2f} s")
    if args.report:
        print(report)
    if args.check:  # after saving, as the C++ command line: the output stays for inspection
        found = onnxopt._compare_with_original(original, optimized or builder.to_model_bytes(), args.check,
                                               args.check_atol, args.check_rtol)
        if found.mismatch is not None:
            print(found.mismatch, file=sys.stderr)
            return 5
        if not args.quiet:
            print(f"{found.within_rounding}check: the same outputs as the original on {args.check} random input set"
                  + ("s" if args.check != 1 else "") + (f" and {found.empty_sets}" if found.empty_sets else ""))
    return 0


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] != "optimize":
        print("usage: python3 -m onnxopt.cli optimize MODEL -o OUTPUT --passes PATH[:PATH...]", file=sys.stderr)
        return 2
    try:
        return optimize(argv[1:])
    except onnxopt.Error as e:
        print(f"onnxopt optimize: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
