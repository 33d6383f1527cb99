"""``fisheye explain`` of a protocol-level counterexample draws the run: one lane per
process, an arrow from each send to its receipt, what each step did on its lane, the step
that breaks the property highlighted with the property's words beside it, and, in the
HTML report, a slider and step buttons that walk through the schedule (checked in
headless chromium, with screenshots)."""

from __future__ import annotations

import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from fisheye.checker import counterexample as cxm
from fisheye.checker.cli import main
from fisheye.checker.explain.run import CAUSAL_ORDER_ON_MESSAGES, named_messages, trace_run
from fisheye.impl.api import replay

SVG = "{http://www.w3.org/2000/svg}"
CAUSAL = "counterexamples/alg2-published-4p--causal-order.json"
RUNS = {  # file: what the property's words say
    CAUSAL: "causal order: p1#0 ~>M p0#0",
    "counterexamples/mutant-no-t1--G-delivery-order.json": "G-delivery order: paris delivered paris#0",
    "counterexamples/mutant-unordered-channels--deadlock.json": "new-york never delivers berlin#0",
    "counterexamples/urb-lcb4-f2--LCURB4-uniform-agreement.json": "LCURB4 (uniform agreement): 'q1'",
}


def _broken(cx: cxm.Counterexample):
    system = cx.system()
    return system, lambda state: cxm.property_failure(system, state, cx.violates)


def test_the_trace_of_a_causal_order_violation():
    cx = cxm.load(CAUSAL)
    system, broken = _broken(cx)
    trace = trace_run(system, cx.schedule, violates=cx.violates, broken=broken)
    assert len(trace.steps) == len(cx.schedule) == 9
    assert trace.breaking == (9,)                     # p1 delivers p0#0 before its own p1#0
    assert trace.steps[8].marks == ("d(p0#0)",) and trace.steps[0].marks == ("w(Y,2)", "b(p1#0)")
    assert "~>M" in trace.words and trace.definitions == (CAUSAL_ORDER_ON_MESSAGES,)
    # the breaking step is the first at which the property fails: the run before it holds
    assert broken(replay(system, cx.schedule[:8])) is None and broken(replay(system, cx.schedule)) is not None
    # every received message is taken by a receipt of its destination from its source
    for m in trace.messages:
        if m.received is not None and not m.lost:
            step = cx.schedule[m.received - 1]
            assert (step.kind, step.process, step.src) == ("recv", m.dst, m.src) and m.sent < m.received
    assert any(m.received is None for m in trace.messages)           # some still in transit at the end
    assert {s.number for s in trace.steps if s.involved} == {1, 5, 6, 9}  # b/d of p1#0 and p0#0


def test_named_messages():
    assert named_messages("causal order: p1#0 ~>M p0#0 but p1 delivered p0#0") == {"p1#0", "p0#0"}
    assert named_messages("'q1' from q is delivered by r") == {"q1"}


@pytest.mark.parametrize("path", sorted(RUNS))
def test_svg_of_a_run(path, tmp_path, capsys):
    out = tmp_path / "run.svg"
    assert main(["explain", path, "--svg", str(out), "--quiet"]) == 0
    text = capsys.readouterr().out
    cx = cxm.load(path)
    root = ET.fromstring(out.read_text(encoding="utf-8"))
    lanes = [g for g in root.iter(f"{SVG}g") if g.get("class") == "lane"]
    assert [g.find(f"{SVG}text").text for g in lanes] == list(cx.history.processes)
    steps = [g for g in root.iter(f"{SVG}g") if (g.get("class") or "").startswith("step")]
    assert [int(g.get("data-step")) for g in steps] == list(range(1, len(cx.schedule) + 1))
    breaking = [int(g.get("data-step")) for g in steps if "breaks" in g.get("class").split()]
    assert len(breaking) == 1
    if cx.violates == cxm.DEADLOCK:
        assert breaking == [len(cx.schedule)]
    words = " ".join(t.text for g in root.iter(f"{SVG}g") if g.get("class") == "words"
                     for t in g.iter(f"{SVG}text"))
    assert RUNS[path].split(":")[-1].strip().split()[0] in words and cx.violates.split()[0] in words
    arrows = [g for g in root.iter(f"{SVG}g") if g.get("class") in ("msg", "msg lost")]
    assert all(int(g.get("data-from")) < int(g.get("data-step")) for g in arrows)
    if path != "counterexamples/mutant-no-t1--G-delivery-order.json":   # that run receives nothing
        assert arrows
    legend = root.find(f".//{SVG}g[@class='legend']")
    assert legend is not None and len(list(legend.iter(f"{SVG}text"))) >= 3
    assert RUNS[path].split(":")[0].split()[0] in text


def test_text_defines_the_notation_it_uses(capsys):
    assert main(["explain", CAUSAL, "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "~>M" in out and CAUSAL_ORDER_ON_MESSAGES in out
    assert main(["explain", "counterexamples/urb-lcb4-f2--LCURB4-uniform-agreement.json", "--quiet"]) == 0
    assert CAUSAL_ORDER_ON_MESSAGES not in capsys.readouterr().out       # not used there, not defined


def test_a_model_violation_marks_the_core_operations_in_its_run(tmp_path, capsys):
    out = tmp_path / "cc.html"
    assert main(["explain", "counterexamples/urb-lcb-mem3--cc.json", "--html", str(out), "--quiet"]) == 0
    capsys.readouterr()
    page = out.read_text(encoding="utf-8")
    svg = page[page.index('<svg xmlns="http://www.w3.org/2000/svg" width', page.index('id="run"')):]
    root = ET.fromstring(svg[:svg.index("</svg>") + 6])
    broken = [g for g in root.iter(f"{SVG}g") if g.get("class") == "step breaks"]
    labels = sorted(g.find(f"{SVG}text").text.split(":")[0] for g in broken)
    assert labels == ["A", "B", "C", "D", "E"]                  # the five operations of the minimal core


def _chromium() -> str:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    assert exe, "chromium is missing: run scripts/install-chromium.sh (scripts/test.sh does)"
    return exe


def _browser(url: str, tmp_path: Path, *, dom: bool = False, shot: Path | None = None) -> str:
    args = [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            f"--user-data-dir={tmp_path / ('profile-' + str(abs(hash((url, dom)))))}",
            "--virtual-time-budget=3000", "--window-size=1300,1300"]
    args += ["--dump-dom"] if dom else [f"--screenshot={shot}"]
    proc = subprocess.run(args + [url], capture_output=True, text=True, timeout=120)
    return proc.stdout


def _pixels(path: Path) -> list[tuple[int, int, int]]:
    from PIL import Image

    data = Image.open(path).convert("RGB").tobytes()
    return [tuple(data[i:i + 3]) for i in range(0, len(data), 3)]


def test_the_html_report_walks_through_the_run_in_chromium(tmp_path, capsys):
    out = tmp_path / "causal.html"
    assert main(["explain", CAUSAL, "--html", str(out), "--quiet"]) == 0
    capsys.readouterr()
    page = out.read_text(encoding="utf-8")
    assert 'type="range"' in page and page.count("<script>") == 1 and "<script src" not in page
    # at step 3: three steps shown, the rest hidden, the status says which step, the replay
    # script's third line highlighted
    dom = _browser(out.as_uri() + "#step=3", tmp_path, dom=True)
    status = re.search(r'<div id="run-status">([^<]*)</div>', dom).group(1)
    assert status == "Step 3 of 9: recv p0 &lt;- p1"
    shown = dict(re.findall(r'<g class="step[^"]*" data-step="(\d+)"[^>]*visibility="(\w+)"', dom))
    assert shown == {str(k): "visible" if k <= 3 else "hidden" for k in range(1, 10)}
    assert re.search(r'<div id="replay-3" class="current">', dom)
    pending = re.findall(r'<g class="msg pending" data-from="(\d+)" data-until="(\d+)" '
                         r'visibility="(\w+)"', dom)
    assert pending and all((v == "visible") == (int(a) <= 3 < int(b)) for a, b, v in pending)
    # the whole run: the breaking step's words in the status
    dom = _browser(out.as_uri(), tmp_path, dom=True)
    assert "Step 9 of 9: deliver p1: d(p0#0) &lt;- this step breaks causal order" in dom
    # screenshots: the whole run draws more than its first step, and the breaking step in red
    first, whole = tmp_path / "step1.png", tmp_path / "whole.png"
    _browser(out.as_uri() + "#step=1", tmp_path, shot=first)
    _browser(out.as_uri(), tmp_path, shot=whole)
    dark = [sum(1 for p in _pixels(f) if sum(p) < 300) for f in (first, whole)]
    assert dark[1] > dark[0] + 300, dark                   # arrows and steps appear as the run goes
    red = [p for p in _pixels(whole) if p[0] > 170 and p[1] < 90 and p[2] < 90]
    assert len(red) > 300                                  # the breaking step, its words


def test_a_run_that_no_longer_breaks_its_property_is_still_drawn(tmp_path, capsys):
    import json

    doc = json.loads(Path(CAUSAL).read_text())
    doc["violates"] = "G-delivery order"          # a property this run does not break
    f = tmp_path / "not-this.json"
    f.write_text(json.dumps(doc))
    out = tmp_path / "run.svg"
    assert main(["explain", str(f), "--svg", str(out), "--quiet"]) == 1
    assert "NOT reproduced" in capsys.readouterr().out
    root = ET.fromstring(out.read_text(encoding="utf-8"))
    steps = [g for g in root.iter(f"{SVG}g") if (g.get("class") or "").startswith("step")]
    assert len(steps) == 9 and not [g for g in steps if "breaks" in g.get("class")]


def test_a_deadlock_shows_who_waits_for_what(tmp_path, capsys):
    out = tmp_path / "dl.svg"
    assert main(["explain", "counterexamples/mutant-unordered-channels--deadlock.json", "--svg", str(out),
                 "--quiet"]) == 0
    capsys.readouterr()
    root = ET.fromstring(out.read_text(encoding="utf-8"))
    waiting = [" ".join(t.text for t in g.iter(f"{SVG}text")) for g in root.iter(f"{SVG}g")
               if g.get("class") == "waiting"]
    assert waiting == ["waits for berlin#0, berlin#1"]        # new-york, as the recorded details say
    lanes = {g.find(f"{SVG}text").text: float(g.find(f"{SVG}line").get("y1"))
             for g in root.iter(f"{SVG}g") if g.get("class") == "lane"}
    bar = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "waiting").find(f"{SVG}line")
    assert float(bar.get("y1")) < lanes["new-york"] < float(bar.get("y2"))
