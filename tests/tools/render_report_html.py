#!/usr/bin/python3
"""Renders the page of `onnxopt optimize --report-html` in headless Chromium.

Usage: render_report_html.py --onnxopt EXE --chromium EXE MODEL WORK_DIR

A relative MODEL is looked for in the corpus folder: $ONNXOPT_CORPUS_DIR when set (a
worktree's build, whose ../shared/corpus does not exist), else --corpus-dir.

Optimizes MODEL with --report-html and --report-json, then has Chromium (Debian's
`chromium`, installed by scripts/install-deps.sh) take a screenshot of the page and dump
its DOM. Checks that the screenshot is a PNG of the window's size and that the rendered
page shows the numbers `onnxopt diff --json` finds in the two models (nodes,
initializers, initializer bytes) and the JSON report's (rewrites, applied rewrites per
pattern), that every link lands on an element of the page and that a node linked to
the batch removing it is linked back. Exits 1 on any failure; a missing Chromium is a
failure, not a skip.
"""

import argparse
import html.parser
import json
import os
import shutil
import struct
import subprocess
import sys
from pathlib import Path

WINDOW = (1280, 2000)


def fail(message):
    print(f"render_report_html: FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def run(argv, **kwargs):
    result = subprocess.run(argv, capture_output=True, text=True, timeout=300, **kwargs)
    if result.returncode != 0:
        fail(f"{' '.join(argv)} exited {result.returncode}:\n{result.stdout}{result.stderr}")
    return result.stdout


class PageText(html.parser.HTMLParser):
    """The text and attributes of the elements that have an id, and the table rows."""

    def __init__(self):
        super().__init__()
        self.by_id = {}        # id -> (attributes, text)
        self.rows = []         # each <tr>: its cells' text
        self._open_ids = []    # (tag, id) of the elements with an id being read
        self._row = None
        self._cell = None
        self.hrefs = []        # every <a href>
        self.item_links = []   # (id of the <li>, target) of the links inside a list item
        self.items = set()     # the ids of the list items
        self._item = None

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if "id" in attributes:
            self.by_id[attributes["id"]] = [attributes, ""]
            self._open_ids.append((tag, attributes["id"]))
        if tag == "li":
            self._item = attributes.get("id")
            if self._item:
                self.items.add(self._item)
        elif tag == "a" and "href" in attributes:
            self.hrefs.append(attributes["href"])
            if self._item and attributes["href"].startswith("#"):
                self.item_links.append((self._item, attributes["href"][1:]))
        if tag == "tr":
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = ""

    def handle_endtag(self, tag):
        if self._open_ids and self._open_ids[-1][0] == tag:
            self._open_ids.pop()
        if tag in ("td", "th") and self._row is not None and self._cell is not None:
            self._row.append(self._cell.strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.rows.append(self._row)
            self._row = None

    def handle_data(self, data):
        for _, element_id in self._open_ids:
            self.by_id[element_id][1] += data
        if self._cell is not None:
            self._cell += data


def check_png(path):
    data = path.read_bytes() if path.exists() else b""
    if len(data) < 10_000:
        fail(f"the screenshot {path} has {len(data)} bytes")
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        fail(f"the screenshot {path} is not a PNG")
    width, height = struct.unpack(">II", data[16:24])
    if (width, height) != WINDOW:
        fail(f"the screenshot is {width}x{height}, not {WINDOW[0]}x{WINDOW[1]}")
    return len(data)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--onnxopt", required=True)
    parser.add_argument("--chromium", required=True)
    parser.add_argument("--corpus-dir", type=Path, default=Path("."))
    parser.add_argument("model", type=Path)
    parser.add_argument("work_dir", type=Path)
    args = parser.parse_args()
    model = Path(os.environ.get("ONNXOPT_CORPUS_DIR", args.corpus_dir)) / args.model

    chromium = shutil.which(args.chromium)
    if not chromium:
        fail(f"{args.chromium} not found: install Debian's chromium (scripts/install-deps.sh)")
    work = args.work_dir.resolve()
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    optimized, page, report = work / "optimized.onnx", work / "report.html", work / "report.json"
    run([args.onnxopt, "optimize", str(model), "-o", str(optimized), "--report-html", str(page),
         "--report-json", str(report), "-q"])
    diff = json.loads(run([args.onnxopt, "diff", str(model), str(optimized), "--json"]))
    report_json = json.loads(report.read_text())

    # A profile of its own: concurrent runs do not share Chromium's lock.
    browser = [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", f"--user-data-dir={work / 'profile'}",
               f"--window-size={WINDOW[0]},{WINDOW[1]}"]
    screenshot = work / "report.png"
    run(browser + [f"--screenshot={screenshot}", page.as_uri()], cwd=work)
    png_bytes = check_png(screenshot)
    dom = run(browser + ["--dump-dom", page.as_uri()], cwd=work)
    text = PageText()
    text.feed(dom)

    def shown(element_id):
        if element_id not in text.by_id:
            fail(f"the rendered page has no element #{element_id}")
        return text.by_id[element_id]

    expected = {
        "nodes-before": diff["nodes"][0], "nodes-after": diff["nodes"][1],
        "initializers-before": diff["initializers"]["count"][0],
        "initializers-after": diff["initializers"]["count"][1],
        "rewrites": report_json["rewrites"],
    }
    for element_id, value in expected.items():
        if shown(element_id)[1].strip() != str(value):
            fail(f"#{element_id} shows {shown(element_id)[1]!r}, expected {value}")
    for side, index in (("before", 0), ("after", 1)):
        attributes = shown(f"initializer-bytes-{side}")[0]
        if attributes.get("data-bytes") != str(diff["initializers"]["bytes"][index]):
            fail(f"#initializer-bytes-{side} has {attributes.get('data-bytes')} bytes, "
                 f"expected {diff['initializers']['bytes'][index]}")
    # The pattern table: one row per pattern that ran, "applied" in its fifth column.
    rows = {row[0]: row for row in text.rows if len(row) == 10}
    applied = [(p["name"], p["applied"]) for p in report_json["patterns"] if p["applied"]]
    if not applied:
        fail("no pattern applied: choose a model that the default patterns rewrite")
    for name, count in applied:
        if name not in rows or rows[name][4] != str(count):
            fail(f"the pattern table shows {rows.get(name)} for {name}, expected {count} applied")
    charts = dom.count('<svg class="chart"')
    if charts < 3:
        fail(f"{charts} charts rendered, expected at least 3")
    if 'id="b1"' not in dom:
        fail("the first rewrite batch is missing")
    # Every link lands on an element of the page, and node links go both ways.
    targets = [href[1:] for href in text.hrefs if href.startswith("#")]
    missing = [target for target in targets if target not in text.by_id]
    if missing:
        fail(f"links to missing elements: {missing[:5]}")
    node_links = {source: target for source, target in text.item_links if target in text.items}
    one_way = [(source, target) for source, target in node_links.items() if node_links.get(target) != source]
    if not node_links or one_way:
        fail(f"{len(node_links)} links between nodes; one way only: {one_way[:5]}")
    print(f"render_report_html: ok: {model.name}: nodes {expected['nodes-before']} -> {expected['nodes-after']}, "
          f"{len(applied)} patterns applied, screenshot {png_bytes} bytes ({screenshot}), page {page.stat().st_size} "
          "bytes")


if __name__ == "__main__":
    main()
