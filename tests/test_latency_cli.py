"""fisheye latency: configuration format, measures, the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fisheye.checker.cli.main import main
from fisheye.checker.latency import ConfigError, load_config, parse_config, resolve_graph
from fisheye.checker.latency.matrix import PUBLISHED_RTT_MS, REGIONS, LatencyMatrix
from fisheye.checker.latency.metrics import Distribution, staleness
from fisheye.checker.latency.simulator import OpTiming
from fisheye.checker.latency.workload import generate

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "latency"


# ---- the default matrix -----------------------------------------------------------------------
def test_default_matrix_is_half_the_mean_published_round_trip():
    m = LatencyMatrix.published(["frankfurt", "ireland", "tokyo"])
    assert m.one_way_ms("frankfurt", "ireland") == pytest.approx((19.55 + 19.56) / 4)
    assert m.one_way_ms("tokyo", "frankfurt") == pytest.approx((236.5 + 236.6) / 4)
    assert m.one_way_ms("tokyo", "tokyo") == 0.25
    assert m.one_way_ms("ireland", "frankfurt") == m.one_way_ms("frankfurt", "ireland")


def test_default_matrix_covers_every_pair_of_regions():
    for a in REGIONS:
        for b in REGIONS:
            if a != b:
                assert (a, b) in PUBLISHED_RTT_MS or (b, a) in PUBLISHED_RTT_MS
    # the Sao Paulo row is not published: its column serves both directions
    assert ("sao-paulo", "virginia") not in PUBLISHED_RTT_MS
    assert LatencyMatrix.published(REGIONS).one_way_ms("sao-paulo", "virginia") == pytest.approx(119.5 / 2)


# ---- configuration ------------------------------------------------------------------------------
BASE = {"placement": {"a": "X", "b": "X", "c": "Y"}, "one_way_ms": {"X": {"Y": 40}}}


def test_configuration_defaults_and_graphs():
    cfg = parse_config(BASE)
    assert cfg.processes == ("a", "b", "c") and cfg.sites == ("X", "Y")
    assert cfg.one_way_ms("a", "c") == cfg.one_way_ms("c", "a") == 40
    assert cfg.one_way_ms("a", "b") == 0.25
    assert resolve_graph(cfg).edges == (("a", "b"),)  # sites, the default
    assert resolve_graph(cfg, "near:50").edges == (("a", "b"), ("a", "c"), ("b", "c"))
    assert resolve_graph(cfg, "empty").edges == ()
    assert len(resolve_graph(cfg, "complete").edges) == 3
    assert resolve_graph(cfg, "a:c").edges == (("a", "c"),)


@pytest.mark.parametrize("change, message", [
    ({"color": 1}, "unknown key 'color'"),
    ({"placement": {}}, "placement must be a non-empty object"),
    ({"one_way_ms": {"X": {}}}, "no delay between sites 'X' and 'Y'"),
    ({"one_way_ms": {"X": {"Z": 1}}}, "'Z', which is not a site"),
    ({"one_way_ms": {"X": {"Y": -1}}}, "one_way_ms.X.Y must be >= 0"),
    ({"workload": {"write_ratio": 1.5}}, "workload.write_ratio must be >= 0 and <= 1"),
    ({"workload": {"ops_per_second": 0}}, "workload.ops_per_second must be > 0"),
    ({"workload": {"registers": 0}}, "workload.registers must be an integer >= 1"),
    ({"workload": {"reads": 3}}, "unknown key workload.'reads'"),
    ({"jitter": {"distribution": "gauss"}}, "jitter.distribution must be one of"),
    ({"algorithm": "paxos"}, "algorithm must be one of toco, lcb"),
    ({"graph": "a:zz"}, "unknown process 'zz'"),
    ({"graph": "paper"}, "not a graph of a latency configuration"),
    ({"duration_s": True}, "duration_s must be a finite number"),
    ({"seed": 1.5}, "seed must be an integer"),
])
def test_bad_configurations_are_rejected(change, message):
    with pytest.raises(ConfigError) as e:
        parse_config({**BASE, **change})
    assert message in str(e.value)


def test_without_a_matrix_sites_must_be_regions():
    with pytest.raises(ConfigError, match="'X' is not a region of the default matrix"):
        parse_config({"placement": {"a": "X"}})


def test_duplicate_keys_and_non_finite_numbers_are_rejected(tmp_path):
    f = tmp_path / "dup.json"
    f.write_text('{"placement": {"a": "tokyo"}, "seed": 1, "seed": 2}')
    with pytest.raises(ConfigError, match="dup.json: duplicated key 'seed'"):
        load_config(str(f))
    f.write_text('{"placement": {"a": "tokyo"}, "duration_s": NaN}')
    with pytest.raises(ConfigError, match="NaN is not a number"):
        load_config(str(f))


# ---- workload -----------------------------------------------------------------------------------
def test_workload_rate_ratio_and_skew():
    cfg = parse_config({**BASE, "duration_s": 20, "workload": {"ops_per_second": 50, "write_ratio": 0.25,
                                                               "registers": 5, "zipf": 1.5}})
    plan = generate(cfg)
    ops = [o for p in cfg.processes for o in plan[p]]
    assert 0.9 * 3000 < len(ops) < 1.1 * 3000                      # 3 processes x 50/s x 20 s
    assert 0.2 < sum(o.kind == "w" for o in ops) / len(ops) < 0.3
    counts = [sum(o.register == f"K{k}" for o in ops) for k in range(5)]
    assert counts == sorted(counts, reverse=True) and counts[0] > 2 * counts[1]
    values = [o.value for o in ops if o.kind == "w"]
    assert len(set(values)) == len(values)                          # distinct written values
    for p in cfg.processes:
        assert [o.arrival_ms for o in plan[p]] == sorted(o.arrival_ms for o in plan[p])
        assert all(o.arrival_ms < 20_000 for o in plan[p])


# ---- measures -----------------------------------------------------------------------------------
def op(p, i, kind, reg, value, start, end):
    return OpTiming(p, i, kind, reg, value, start, start, end)


def test_staleness_by_hand():
    ops = [
        op("p", 0, "w", "X", 1, 0.0, 10.0),
        op("p", 1, "w", "X", 2, 20.0, 30.0),
        op("q", 0, "r", "X", 1, 25.0, 25.0),   # X=2 not yet returned: fresh
        op("q", 1, "r", "X", 1, 45.0, 45.0),   # X=2 returned at 30: 15 ms stale
        op("q", 2, "r", "X", 2, 50.0, 50.0),   # the latest: fresh
        op("q", 3, "r", "X", 0, 12.0, 12.0),   # initial value, X=1 returned at 10: 2 ms stale
    ]
    assert staleness(ops) == [0.0, 15.0, 0.0, 2.0]


def test_distribution_percentiles():
    d = Distribution.of(range(1, 101))
    assert (d.count, d.median_ms, d.max_ms) == (100, 50.5, 100.0)
    assert d.p95_ms == pytest.approx(95.05) and d.p99_ms == pytest.approx(99.01)
    assert Distribution.of([]).to_json()["median_ms"] is None


# ---- the command --------------------------------------------------------------------------------
def test_every_example_configuration_is_valid():
    files = sorted(EXAMPLES.glob("*.json"))
    assert files
    for f in files:
        load_config(str(f))


def test_cli_json_has_the_contract_keys(capsys, tmp_path):
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps({**BASE, "duration_s": 0.5}))
    assert main(["latency", str(cfg), "--graph", "complete", "--seed", "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["graph"] == [["a", "b"], ["a", "c"], ["b", "c"]]
    for k in ("reads", "writes"):
        assert set(out[k]) >= {"count", "median_ms", "p95_ms", "p99_ms"}
    assert out["messages_per_op"] > 0 and out["seed"] == 3
    assert out["verdicts"] == {"sc": "consistent", "fisheye": "consistent", "cc": "consistent"}
    assert out["writes"]["median_ms"] >= 80  # a round trip to Y, 40 ms one way


def test_cli_text_and_plot(capsys, tmp_path):
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps({**BASE, "duration_s": 0.5}))
    png = tmp_path / "out.png"
    assert main(["latency", str(cfg), "--plot", str(png)]) == 0
    text = capsys.readouterr().out
    assert "verdicts: sc" in text and "fisheye consistent" in text
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("args, message", [
    (["latency", "/nonexistent.json"], "/nonexistent.json: no such file"),
    (["latency", "BAD", "--graph", "a:q"], "--graph: edge"),
])
def test_cli_bad_input_is_one_line_and_status_2(capsys, tmp_path, args, message):
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps(BASE))
    args = [str(cfg) if a == "BAD" else a for a in args]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_plots_of_comparisons_and_sweeps(tmp_path):
    from fisheye.checker.latency import run_latency
    from fisheye.checker.latency.plot import plot_compare, plot_sweep

    cfg = parse_config({**BASE, "duration_s": 0.3})
    reps = {g: [run_latency(cfg, g, seed=s, models=()) for s in (0, 1)] for g in ("empty", "complete")}
    plot_compare(reps, str(tmp_path / "c.png"), title="t")
    plot_sweep([1, 2, 4], {"a": [1.0, None, 3.0]}, str(tmp_path / "s.png"), xlabel="x", ylabel="y",
               logx=True, logy=True, bands={"a": [2.0, 3.0, None]})
    for name in ("c.png", "s.png"):
        assert (tmp_path / name).read_bytes()[:4] == b"\x89PNG"


def test_progress_reports_increasing_simulated_time():
    from fisheye.checker.latency.run import delay_function
    from fisheye.checker.latency.simulator import simulate
    from fisheye.checker.latency.systems import build_system

    seen: list[tuple[float, int]] = []
    cfg = parse_config({**BASE, "duration_s": 1})
    plan = generate(cfg)
    system = build_system("toco", resolve_graph(cfg), plan)
    run = simulate(system, plan, delay_function(cfg), processing_ms=0.05,
                   progress=lambda t, n: seen.append((t, n)), progress_every=10)
    assert len(seen) == len(run.schedule) // 10 > 3
    assert [n for _, n in seen] == list(range(10, 10 * len(seen) + 1, 10))
    assert [t for t, _ in seen] == sorted(t for t, _ in seen) and seen[-1][0] > 0


def test_the_sweep_script_replaces_only_the_tables(tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("latency_sweeps", EXAMPLES.parent.parent / "bench"
                                                  / "latency_sweeps.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    doc = tmp_path / "latency.md"
    doc.write_text("prose\n<!-- table:a -->\nold\n<!-- /table:a -->\nmore prose\n")
    assert mod.replace_tables(doc, {"a": "| new |", "b": "x"}) == ["b"]
    assert doc.read_text() == "prose\n<!-- table:a -->\n| new |\n<!-- /table:a -->\nmore prose\n"
