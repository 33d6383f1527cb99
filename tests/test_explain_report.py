"""``fisheye explain`` at scale and its renderings: a core found from the engine's
certificate in a few checks on thousands of operations, a whole-command time limit,
progress on stderr, bounded diagrams of the core and its context with a legend and no
overlapping labels, and a self-contained HTML report rendered in a real headless
browser (Debian's chromium, installed by scripts/install-chromium.sh)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from fisheye.checker.cli import main
from fisheye.checker.explain import ExplainError, explain, verify
from fisheye.checker.explain.diagram import MAX_SHOWN
from fisheye.checker.explain.diagram import render as diagram
from fisheye.checker.explain.routing import Curve, crossings
from fisheye.checker.explain.svg import CHAR, MAX_WIDTH
from fisheye.checker.explain.svg import render as svg_render
from fisheye.checker.result import Verdict
from fisheye.spec.history import parse_history

sys.path.insert(0, str(Path(__file__).parent.parent / "bench"))
from explain_scale import big_history  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def big():
    """2,000 operations, long process names, one fisheye violation on the edge p0:p1."""
    d = big_history(2000)
    ren = {p: f"datacenter-{p}-with-a-rather-long-name" for p in d["processes"]}
    return {"processes": [ren[p] for p in d["processes"]],
            "graph": [[ren[a], ren[b]] for a, b in d["graph"]],
            "history": {ren[p]: ops for p, ops in d["history"].items()}}


@pytest.fixture(scope="module")
def big_exp(big):
    lines: list[str] = []
    exp = explain(parse_history(big), "fisheye", progress=lines.append)
    return exp, lines


def test_core_from_the_certificate_in_few_checks(big_exp):
    exp, progress = big_exp
    assert len(exp.history.ops) == 2000
    assert len(exp.core.uids) == 4 and exp.core.minimal
    assert exp.core.checks <= 20          # not one check per operation of the history
    assert verify(exp) == []
    assert any("certificate" in line for line in progress)
    names = {exp.history.ops[u].process for u in exp.core.uids}
    assert names == {"datacenter-p0-with-a-rather-long-name", "datacenter-p1-with-a-rather-long-name"}


def test_minimisation_without_a_certificate_still_finds_the_core(big):
    """A decider that gives no certificate: halving chunks, still far fewer checks than
    operations."""
    from fisheye.checker.engines import check

    h = parse_history(big)
    calls = []

    def decide(sub):
        calls.append(len(sub.ops))
        return check(sub, "fisheye").verdict
    exp = explain(h, "fisheye", decide=decide)
    assert len(exp.core.uids) == 4 and exp.core.minimal
    assert len(calls) < 200


def test_diagram_and_svg_are_bounded_and_show_the_core(big_exp):
    exp, _ = big_exp
    text = diagram(exp)
    assert len(text) < 3000 and "of 2000 operations" in text and "legend:" in text
    assert "A:w(X," in text and "+2" in text              # operations not drawn are counted
    svg = svg_render(exp)
    root = ET.fromstring(svg)
    assert int(root.get("width")) <= MAX_WIDTH and int(root.get("height")) < 2000
    ops = [e for e in root.iter() if "op" in (e.get("class") or "").split()]
    assert 4 <= len(ops) <= MAX_SHOWN
    assert root.find(f".//{SVG}g[@class='legend']") is not None


def _label_boxes(root: ET.Element) -> list[tuple[float, float, float, float, str]]:
    boxes = []
    for g in root.iter(f"{SVG}g"):
        if "op" not in (g.get("class") or "").split():
            continue
        t = g.find(f"{SVG}text")
        x, y, n = float(t.get("x")), float(t.get("y")), len(t.text)
        assert t.get("text-anchor") == "start"
        boxes.append((x, y - 12, x + n * CHAR, y + 3, t.text))
    return boxes


def _curves(root: ET.Element, kind: str) -> list[Curve]:
    out = []
    for e in root.iter(f"{SVG}path"):
        if kind in (e.get("class") or "").split():
            nums = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", e.get("d"))]
            assert len(nums) == 6, e.get("d")           # M x y Q cx cy x y
            out.append(Curve((nums[0], nums[1]), (nums[2], nums[3]), (nums[4], nums[5])))
    return out


def _history_svgs(big_exp) -> dict[str, str]:
    from fisheye.spec import paper

    fig4 = parse_history(json.loads(Path("examples/fig4.json").read_text()))
    iriw = json.loads(Path("counterexamples/alg2-published-4p--fisheye-2014.json").read_text())
    return {"fig4": svg_render(explain(fig4, "fisheye")),
            "iriw": svg_render(explain(parse_history(iriw["history"]), "fisheye-2014")),
            "fig6": svg_render(explain(paper.figure6(2, 5), "fisheye")),
            "big": svg_render(big_exp[0])}


def test_arrows_and_cycle_arcs_do_not_run_through_labels(big_exp):
    for name, text in _history_svgs(big_exp).items():
        root = ET.fromstring(text)
        boxes = [b[:4] for b in _label_boxes(root)]
        rf, arcs = _curves(root, "rf"), _curves(root, "cycle")
        assert rf and (arcs or name == "big"), name
        for c in rf + arcs:
            # the box test itself: a curve through a label's middle is caught
            assert crossings(c, boxes) == 0, (name, c)
    # the check can fail: a line through the middle of C's label in fig4 is caught
    boxes = _label_boxes(ET.fromstring(_history_svgs(big_exp)["fig4"]))
    x0, y0, x1, y1, _ = next(b for b in boxes if b[4].startswith("C:"))
    through = Curve((x0 - 30, (y0 + y1) / 2), ((x0 + x1) / 2, (y0 + y1) / 2), (x1 + 30, (y0 + y1) / 2))
    assert crossings(through, [b[:4] for b in boxes]) == 1


def test_the_legend_explains_solid_and_dashed_lines():
    from fisheye.checker.explain.svg import CYCLE_DASHES

    iriw = json.loads(Path("counterexamples/alg2-published-4p--fisheye-2014.json").read_text())
    root = ET.fromstring(svg_render(explain(parse_history(iriw["history"]), "fisheye-2014")))
    legend = root.find(f".//{SVG}g[@class='legend']")
    texts = " ".join(t.text for t in legend.iter(f"{SVG}text"))
    assert "read-from between two core operations" in texts and "read-from with a context operation" in texts
    dashes = {line.get("stroke-dasharray") for line in legend.iter(f"{SVG}line")}
    assert {"none", "4 3"} <= dashes                       # a solid and a dashed read-from sample
    samples = [e for e in root.iter(f"{SVG}line") if e.get("class") == "cycle-label"]
    labels = [e for e in root.iter(f"{SVG}text") if e.get("class") == "cycle-label"]
    assert len(samples) == len(labels) == 2               # one line style sample per contradicting cycle
    assert [e.get("stroke-dasharray") for e in samples] == list(CYCLE_DASHES[:2])
    arcs = [e.get("stroke-dasharray") for e in root.iter(f"{SVG}path") if e.get("class") == "cycle"]
    assert set(arcs) == set(CYCLE_DASHES[:2])


@pytest.mark.parametrize("which", ["big", "fig6"])
def test_labels_never_overlap(which, big_exp):
    from fisheye.spec import paper

    exp = big_exp[0] if which == "big" else explain(paper.figure6(2, 5), "fisheye")
    boxes = _label_boxes(ET.fromstring(svg_render(exp)))
    assert len(boxes) >= 4
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            disjoint = a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]
            assert disjoint, f"labels {a[4]!r} and {b[4]!r} overlap"


def test_whole_command_timeout_exits_3(tmp_path, big, capsys):
    f = tmp_path / "big.json"
    f.write_text(json.dumps(big))
    assert main(["explain", str(f), "--model", "fisheye", "--timeout", "0.000001"]) == 3
    out, err = capsys.readouterr()
    assert "time limit" in out and "Traceback" not in err
    with pytest.raises(ExplainError) as e:
        explain(parse_history(big), "fisheye", timeout=1e-6)
    assert e.value.verdict is Verdict.UNKNOWN


def test_progress_on_stderr_unless_quiet(tmp_path, capsys):
    from fisheye.spec import paper

    f = tmp_path / "fig6.json"
    f.write_text(json.dumps(paper.figure6(2, 5).to_json()))
    assert main(["explain", str(f), "--model", "fisheye"]) == 0
    err = capsys.readouterr().err
    assert "explain [" in err and "minimal core" in err
    assert main(["explain", str(f), "--model", "fisheye", "--quiet"]) == 0
    assert capsys.readouterr().err == ""


# ---- the HTML report, in a real browser ------------------------------------------------------

def _chromium() -> str:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    assert exe, "chromium is missing: run scripts/install-chromium.sh (scripts/test.sh does)"
    return exe


def test_html_report_is_self_contained(tmp_path, capsys):
    out = tmp_path / "iriw.html"
    cx = "counterexamples/alg2-published-4p--fisheye-2014.json"
    assert main(["explain", cx, "--html", str(out), "--quiet"]) == 0
    capsys.readouterr()
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page
    # nothing fetched from anywhere: no script file, stylesheet link, image, frame or remote url
    for tag in ("<script src", "<link", "<img", "<iframe", "@import"):
        assert tag not in page
    assert page.count("<script>") == 1                      # the run's slider, inline
    urls = set(re.findall(r"https?://[^\s\"'<>)]+", page))
    assert urls <= {"http://www.w3.org/2000/svg"}
    assert all(u.startswith("url(#") for u in re.findall(r"url\([^)]*\)", page))
    assert "a contradiction!" in page and "Replay script" in page and "The history" in page


def _pixels(img) -> list[tuple[int, int, int]]:
    data = img.tobytes()
    return [tuple(data[i:i + 3]) for i in range(0, len(data), 3)]


def test_html_report_renders_in_headless_chromium(tmp_path, capsys):
    from PIL import Image

    out = tmp_path / "iriw.html"
    assert main(["explain", "counterexamples/alg2-published-4p--fisheye-2014.json", "--html", str(out),
                 "--quiet"]) == 0
    capsys.readouterr()
    png = tmp_path / "shot.png"
    proc = subprocess.run([_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                           f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1200,2400",
                           f"--screenshot={png}", out.as_uri()],
                          capture_output=True, text=True, timeout=120)
    assert png.exists(), proc.stderr[-2000:]
    img = Image.open(png).convert("RGB")
    assert img.size == (1200, 2400)
    small = img.resize((120, 240))
    pixels = _pixels(small)
    non_white = [p for p in pixels if sum(p) < 720]
    assert len(non_white) > 0.02 * len(pixels)               # not blank
    assert len(set(pixels)) > 20                              # text, shading, the diagram
    red = [p for p in _pixels(img) if p[0] > 150 and p[1] < 100 and p[2] < 100]
    assert len(red) > 200                                     # the highlighted core and contradiction
    # the diagram is drawn: the SVG alone renders to non-blank pixels as well
    svg = tmp_path / "d.svg"
    assert main(["explain", "counterexamples/alg2-published-4p--fisheye-2014.json", "--svg", str(svg),
                 "--quiet"]) == 0
    capsys.readouterr()
    shot = tmp_path / "svg.png"
    subprocess.run([_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    f"--user-data-dir={tmp_path / 'profile2'}", "--window-size=800,600",
                    f"--screenshot={shot}", svg.as_uri()], capture_output=True, text=True, timeout=120)
    simg = Image.open(shot).convert("RGB")
    orange = [p for p in _pixels(simg) if p[0] > 200 and 90 < p[1] < 160 and p[2] < 80]
    assert len(orange) > 100                                  # the contradicting cycle's arrows


@pytest.mark.parametrize("cx", ["counterexamples/mutant-no-catch-up--deadlock.json",
                                "counterexamples/urb-lcb4-f2--LCURB4-uniform-agreement.json"])
def test_html_report_of_a_run_violation(cx, tmp_path, capsys):
    out = tmp_path / "run.html"
    assert main(["explain", cx, "--html", str(out)]) == 0
    text = capsys.readouterr().out
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "Delivery logs" in page and "Replay script" in page
    for tag in ("<script src", "<link", "<img"):
        assert tag not in page
    assert set(re.findall(r"https?://[^\s\"'<>)]+", page)) <= {"http://www.w3.org/2000/svg"}
    assert 'class="run"' in page and page.count("<script>") == 1     # the run, walked through by a slider
    first_log = text.split("Delivery logs (b = broadcast, d = deliver):\n", 1)[1].splitlines()[0]
    proc, events = first_log.strip().split(": ", 1)
    assert f"<td>{proc}</td><td>{events if events != '-' else ''}" in page.replace("&gt;", ">")
    assert "(" not in events or "'" not in events            # no Python tuple reprs
