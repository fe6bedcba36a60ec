"""Peers side by side: dispatch and PyVRP / OR-Tools / VROOM on the same instances, in one run,
on one machine, each answer judged by dispatch's independent checker
(examples/check_solution.rs). Run through `benches/peers/run` (see benches/README.md)."""

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import models

ROOT = Path(os.environ.get("PEERS_ROOT", Path(__file__).resolve().parents[2]))
DISPATCH = Path(os.environ.get("DISPATCH_BIN", ROOT / "target/release/dispatch"))
CHECK = Path(os.environ.get("CHECK_BIN", ROOT / "target/release/examples/check_solution"))
BOUND = Path(os.environ.get("BOUND_BIN", ROOT / "target/release/examples/placement_bound"))


def run_child(cmd):
    """Runs `cmd` and returns (stdout, stderr, wall seconds, peak RSS MB). The peak is the
    child's own VmHWM (a high-water mark) read every 20 ms: the rusage of a forked child would
    also count this Python process's pages from before the exec."""
    start = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    peak = [0]

    def watch():
        while p.poll() is None:
            try:
                for line in open(f"/proc/{p.pid}/status"):
                    if line.startswith("VmHWM:"):
                        peak[0] = max(peak[0], int(line.split()[1]))
            except OSError:
                pass
            time.sleep(0.02)

    watcher = threading.Thread(target=watch)
    watcher.start()
    out, err = p.communicate()
    watcher.join()
    wall = time.monotonic() - start
    if p.returncode != 0:
        raise RuntimeError(f"{cmd}: exit {p.returncode}: {err.decode()[-500:]}")
    return out, err.decode(), wall, peak[0] / 1024


def check(instance, solution, convention):
    p = subprocess.run([str(CHECK), str(instance), "-", "--convention", convention],
                       input=json.dumps(solution).encode(), capture_output=True)
    if p.returncode != 0:
        return {"feasible": False, "violations": [p.stderr.decode().strip()[-300:]]}
    return json.loads(p.stdout)


def ours(instance, seconds, threads, extra=(), seed=1):
    cmd = [str(DISPATCH), "solve", str(instance), "--time-limit", str(seconds),
           "--threads", str(threads), "--seed", str(seed), *extra]
    out, err, wall, rss = run_child(cmd)
    sol = json.loads(out)
    sol["elapsed_s"] = wall
    sol["rss_mb"] = rss
    # `dispatch solve` ends its stderr with "done elapsed_s=.. iterations=N iterations_per_s=X".
    done = [l for l in err.splitlines() if l.startswith("done ")]
    fields = dict(kv.split("=", 1) for kv in done[-1].split()[1:]) if done else {}
    sol["iterations"] = int(fields.get("iterations", 0))
    sol["it_s"] = float(fields["iterations_per_s"]) if "iterations_per_s" in fields else None
    return sol


def placement_bound(instance):
    """The certified upper bound on the tasks any solution places (examples/placement_bound.rs)."""
    p = subprocess.run([str(BOUND), str(instance)], capture_output=True, check=True)
    return json.loads(p.stdout)


def iterations_per_second(instance, iterations=1000, threads=1):
    """Search iterations per second after start-up, from a fixed iteration budget."""
    out, err, wall, rss = run_child([str(DISPATCH), "solve", str(instance), "--iterations",
                                     str(iterations), "--time-limit", "3600", "--threads",
                                     str(threads), "--seed", "1"])
    startup = next((float(l.split("elapsed_s=")[1].split()[0]) for l in err.splitlines()
                    if "iteration=0 " in l), 0.0)
    elapsed = json.loads(out)["elapsed_s"]
    return startup, iterations / max(elapsed - startup, 1e-9), rss


def bks_of(instance, objective):
    rows = (instance.parent / "bks.csv").read_text().splitlines()[1:]
    name = instance.stem.lower()
    for r in rows:
        c = r.split(",")
        if c[0].lower() == name and c[3] == objective:
            return float(c[2])
    return None


def load():
    return open("/proc/loadavg").read().split()[0]


def commit():
    if os.environ.get("PEERS_COMMIT"):
        return os.environ["PEERS_COMMIT"]
    rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                         capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "-uno"],
                           capture_output=True, text=True).stdout.strip()
    return rev + (" (dirty)" if dirty else "")


def header(title, args):
    return [f"# {title}", "",
            f"Commit {commit()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
            f"command `benches/peers/run {' '.join(sys.argv[1:])}`.",
            f"Measured on the shared 2-core machine under load (other developers building; "
            f"load average {load()} at the start): wall-clock figures are pessimistic.", ""]


def fmt(v, digits=2):
    return "-" if v is None else f"{v:.{digits}f}"


def classic(args):
    files = [Path(f) for f in args.files]
    convention = "dimacs"
    lines = header(f"Peers on benchmark instances, {args.time_limit:g} s each", args)
    lines += ["Gap of the checker's DIMACS distance to the DIMACS `distance` BKS (Li & Lim: of the "
              "double-precision distance to the `hierarchical` BKS; vehicles in brackets). "
              + ("Every solver, dispatch included (`--convention dimacs`), solves in the DIMACS "
                 "convention (arcs and times truncated to one decimal). "
                 if args.ours_convention == "dimacs" else
                 "dispatch solves in its exact model (travel times rounded up: stricter than "
                 "DIMACS), the peers in the DIMACS convention. ") +
              "`ours/1`, `ours/2`: dispatch at 1 and 2 threads; "
              "PyVRP and OR-Tools are single-threaded. `x` = infeasible per the checker.", "",
              "| instance | BKS | ours/1 | ours/2 | PyVRP | OR-Tools |", "|---|---|---|---|---|---|"]
    gaps = {k: [] for k in ("ours1", "ours2", "pyvrp", "ortools")}
    for f in files:
        objective = "hierarchical" if f.parent.name == "lilim" else "distance"
        bks = bks_of(f, objective)
        results = {}
        flags = ["--objective", "distance", "--convention", args.ours_convention]
        for key, fn in [("ours1", lambda: ours(f, args.time_limit, 1, flags, args.seed)),
                        ("ours2", lambda: ours(f, args.time_limit, 2, flags, args.seed)),
                        ("pyvrp", lambda: models.solve_pyvrp(str(f), args.time_limit, args.seed)),
                        ("ortools", lambda: models.solve_ortools(str(f), args.time_limit))]:
            if key not in args.solvers:
                continue
            sol = fn()
            if sol is None:
                continue
            c = check(f, {"routes": sol["routes"]}, convention)
            ok = c["feasible"] and c.get("assigned") == c.get("tasks")
            d = c.get("plane_distance" if objective == "hierarchical" else "dimacs_distance")
            gap = (d / bks - 1) * 100 if ok and bks else None
            results[key] = (gap, ok, c.get("vehicles"))
            if gap is not None:
                gaps[key].append((f.stem, gap))
            print(f"{f.stem} {key}: {c}", file=sys.stderr, flush=True)
        cells = []
        for key in ("ours1", "ours2", "pyvrp", "ortools"):
            if key not in results:
                cells.append("n/a")
            else:
                gap, ok, veh = results[key]
                cells.append(f"{fmt(gap)} % ({veh})" if ok else "x")
        lines.append(f"| {f.stem} | {fmt(bks)} | " + " | ".join(cells) + " |")
    lines += ["", "Mean gap over the instances every solver answered feasibly and completely:", ""]
    common = set.intersection(*[{n for n, _ in v} for v in gaps.values() if v]) if any(gaps.values()) else set()
    lines += ["| solver | instances feasible | mean gap on common set |", "|---|---|---|"]
    for key, v in gaps.items():
        on_common = [g for n, g in v if n in common]
        mean = sum(on_common) / len(on_common) if on_common else None
        lines.append(f"| {key} | {len(v)} | {fmt(mean, 3)} % |")
    return lines


def vroom_answer(f, args):
    """VROOM's routes for day `f`; with `--vroom-answers DIR` read from, or saved to,
    DIR/<day>-x<level>[-cap<S>].json, so a slow VROOM run is done once (e.g. in the background
    under `nice`) and later runs of ours compare with it. Its recorded time is the original's."""
    name = f"{f.stem}-x{args.vroom_x}" + (f"-cap{args.vroom_cap:g}" if args.vroom_cap else "")
    saved = Path(args.vroom_answers) / f"{name}.json" if args.vroom_answers else None
    if saved and saved.exists():
        return json.loads(saved.read_text())
    v = models.solve_vroom(str(f), args.vroom_x, args.threads, args.vroom_cap)
    if saved:
        saved.parent.mkdir(parents=True, exist_ok=True)
        saved.write_text(json.dumps(v))
    return v


def depots(args):
    files = [Path(f) for f in args.files]
    lines = header(f"Peers on sample depots: dispatch at {args.time_limit:g} s vs VROOM "
                   f"-x {args.vroom_x}", args)
    sizes = {}
    lines += [f"dispatch at {args.time_limit:g} s and {args.threads} threads; VROOM (pyvroom) "
              f"with {args.threads} threads, exploration level {args.vroom_x}, its own stopping "
              "rule" + (f" (capped at {args.vroom_cap:g} s)" if args.vroom_cap else "") +
              ". Assigned tasks (a shipment is two) and cost (travel time, s) as the checker "
              "recomputes them. Target: assigned >= VROOM's and, at equal count, lower cost.", "",
              "| day | tasks | ours assigned | ours cost | ours s | ours it/s | ours RSS MB | "
              "VROOM assigned | VROOM cost | VROOM s | cost ratio | target |" +
              (" provably unplaceable | ours left out beyond it |" if args.bound else ""),
              "|---|---|---|---|---|---|---|---|---|---|---|---|" + ("---|---|" if args.bound else "")]
    run_ours = any(s.startswith("ours") for s in args.solvers)
    for f in files:
        if run_ours:
            o = ours(f, args.time_limit, args.threads)
            co = check(f, o, "exact")
            print(f"{f.stem} ours: {co}", file=sys.stderr, flush=True)
        else:
            o, co = {"elapsed_s": None, "it_s": None, "rss_mb": None}, {"feasible": True}
        sizes[f] = co.get("tasks", 0)
        if "vroom" in args.solvers:
            v = vroom_answer(f, args)
            cv = check(f, v, "exact")
            print(f"{f.stem} vroom: {cv} in {v['elapsed_s']:.1f} s", file=sys.stderr, flush=True)
        else:
            v, cv = {"elapsed_s": None}, {}
        ratio = (co["travel_time"] / cv["travel_time"]) if cv.get("travel_time") and run_ours \
            else None
        if not run_ours:
            verdict = "-"
        elif not co["feasible"]:
            verdict = "missed (infeasible)"
        elif not cv:
            verdict = "-"
        elif co["assigned"] > cv["assigned"]:
            verdict = "met (more assigned)"
        elif co["assigned"] == cv["assigned"]:
            verdict = "met" if ratio < 1 else "missed (cost)"
        else:
            verdict = f"missed ({cv['assigned'] - co['assigned']} fewer)"
        if cv and not cv.get("feasible"):
            code = cv["violations"][0].split("code: ")[-1].split(",")[0] if cv["violations"] else "?"
            verdict += f"; VROOM's routes fail the checker ({code})"
        feas = "" if co["feasible"] else " x"
        lines.append(f"| {f.stem} | {co.get('tasks', cv.get('tasks'))} | {co.get('assigned', '-')}{feas} | "
                     f"{co.get('travel_time')} | {fmt(o['elapsed_s'], 1)} | {fmt(o['it_s'], 1)} | "
                     f"{fmt(o['rss_mb'], 0)} | "
                     f"{cv.get('assigned', '-')} | {cv.get('travel_time', '-')} | "
                     f"{fmt(v['elapsed_s'], 1)} | {fmt(ratio, 3)} | {verdict} |" +
                     (bound_cells(f, co) if args.bound else ""))
    lines += ["", "A route fails the checker when it breaks dispatch's model. VROOM may take a "
              "break after driving to the next stop (during the wait there); dispatch's model "
              "takes it before driving on, so some VROOM routes end a few seconds after the "
              "shift (ShiftEnd) or miss a window in dispatch's model; their figures are shown "
              "as VROOM reports the routes."]
    if args.bound:
        lines += ["", "Provably unplaceable: at least this many tasks are left out by every "
                  "feasible solution (`examples/placement_bound.rs`: a linear-programming "
                  "relaxation over vehicle classes, certified through its dual; its fractional "
                  "optimum lies between the two values shown)."]
    if args.rate:
        lines += ["", "Iterations per second (1 thread, an iteration budget of 1 000, or 200 "
                  "above 3 000 tasks; after start-up):",
                  "", "| day | iterations | start-up s | iterations/s | peak RSS MB |",
                  "|---|---|---|---|---|"]
        for f in files:
            n = 1000 if sizes[f] <= 3000 else 200
            s, rate, rss = iterations_per_second(f, n)
            lines.append(f"| {f.stem} | {n} | {s:.2f} | {rate:.1f} | {rss:.0f} |")
    return lines


def bound_cells(f, co):
    b = placement_bound(f)
    print(f"{f.stem} bound: {b}", file=sys.stderr, flush=True)
    beyond = co["tasks"] - co["assigned"] - b["unplaceable_at_least"] if "assigned" in co else "-"
    return (f" >= {b['unplaceable_at_least']} (LP {b['primal_value']:.1f}-{b['dual_value']:.1f}"
            f" of {b['tasks']}) | {beyond} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("suite", choices=["classic", "depots"])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--time-limit", type=float, default=10)
    ap.add_argument("--seed", type=int, default=1,
                    help="classic: the seed of dispatch and PyVRP (single runs rank loosely)")
    ap.add_argument("--threads", type=int, default=2, help="depots: ours' and VROOM's threads")
    ap.add_argument("--vroom-x", type=int, default=5)
    ap.add_argument("--vroom-cap", type=float, default=None,
                    help="give VROOM a timeout (default: its own stopping rule)")
    ap.add_argument("--solvers", default="ours1,ours2,pyvrp,ortools,vroom",
                    help="columns; depots: `vroom` alone runs VROOM only")
    ap.add_argument("--vroom-answers", metavar="DIR",
                    help="depots: reuse VROOM's answers saved in DIR, save new ones there")
    ap.add_argument("--ours-convention", choices=["dimacs", "exact"], default="dimacs",
                    help="classic: dispatch's travel model (the peers always solve in DIMACS)")
    ap.add_argument("--rate", action="store_true", help="depots: also iterations per second")
    ap.add_argument("--bound", action="store_true",
                    help="depots: also the tasks no solution can place (certified bound)")
    ap.add_argument("--out", help="also write the table to bench-results/NAME")
    args = ap.parse_args()
    args.solvers = args.solvers.split(",")
    lines = classic(args) if args.suite == "classic" else depots(args)
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        (ROOT / "bench-results" / args.out).write_text(text)


if __name__ == "__main__":
    main()
