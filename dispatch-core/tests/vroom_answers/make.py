#!/usr/bin/env python3
"""Writes the VROOM-format test problems of this folder and VROOM's own answers to them.

    target/peers-venv/bin/python dispatch-core/tests/vroom_answers/make.py

The problems are seeded (the same files every run); the answers come from pyvroom (the VROOM
library, as benches/peers installs it) at exploration level 5 on one thread, and are committed
so that the tests need no VROOM. Run again only to change the problems.
"""
import json
import math
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent


def matrices(points, distances=True):
    n = len(points)
    dur = [[round(math.dist(points[a], points[b]) * 6) for b in range(n)] for a in range(n)]
    out = {"durations": dur}
    if distances:
        out["distances"] = [[round(math.dist(points[a], points[b]) * 100) for b in range(n)]
                            for a in range(n)]
    return {"car": out}


def windows(rng, day_start, day_end):
    r = rng.random()
    if r < 0.35:
        return None
    if r < 0.85:
        s = rng.randrange(day_start, day_end - 3600)
        return [[s, s + rng.choice([1800, 3600, 7200])]]
    s = rng.randrange(day_start, (day_start + day_end) // 2 - 3600)
    t = rng.randrange((day_start + day_end) // 2, day_end - 1800)
    return [[s, s + 1800], [t, t + 1800]]


def tw_jobs(rng):
    """Jobs with windows, set-ups, deliveries and pickups, skills and priorities; three
    vehicles with shifts, one without a shift window."""
    points = [(50, 50)] + [(rng.uniform(0, 100), rng.uniform(0, 100)) for _ in range(24)]
    jobs = []
    for i in range(1, 25):
        j = {"id": 100 + i, "location_index": i, "setup": rng.choice([0, 30, 60]),
             "service": rng.choice([120, 300, 600]),
             "delivery": [rng.randrange(0, 8), rng.randrange(0, 20)],
             "pickup": [rng.randrange(0, 3), 0], "priority": rng.choice([0, 0, 0, 10, 50])}
        tw = windows(rng, 28800, 61200)
        if tw:
            j["time_windows"] = tw
        if i % 7 == 0:
            j["skills"] = [1]
        if i % 5 == 0:
            j["description"] = f"customer {i}"
        jobs.append(j)
    vehicles = [
        {"id": 1, "start_index": 0, "end_index": 0, "capacity": [40, 120], "skills": [1],
         "time_window": [28800, 61200], "description": "van 1"},
        {"id": 2, "start_index": 0, "end_index": 0, "capacity": [30, 100], "skills": [],
         "time_window": [32400, 64800]},
        {"id": 3, "start_index": 0, "end_index": 0, "capacity": [25, 60], "skills": [1]},
    ]
    return {"vehicles": vehicles, "jobs": jobs, "matrices": matrices(points)}


def shipments(rng):
    """Shipments beside jobs; an open-ended vehicle, an open-start one, and one without a
    window; durations only (no distances)."""
    points = [(50, 50), (10, 90)] + [(rng.uniform(0, 100), rng.uniform(0, 100))
                                     for _ in range(26)]
    jobs = [{"id": i, "location_index": 1 + i, "service": 300, "delivery": [2]}
            for i in range(1, 9)]
    for j in jobs[::3]:
        j["time_windows"] = [[36000, 43200]]
    ships = []
    for k in range(9):
        p, d = 10 + 2 * k, 11 + 2 * k
        s = {"amount": [rng.randrange(1, 6)],
             "pickup": {"id": 200 + k, "location_index": p, "service": 180, "setup": 60},
             "delivery": {"id": 200 + k, "location_index": d, "service": 240}}
        if k % 3 == 1:
            s["delivery"]["time_windows"] = [[43200, 50400]]
        if k % 4 == 2:
            s["pickup"]["description"] = "parcel"
        ships.append(s)
    vehicles = [
        {"id": 7, "start_index": 0, "capacity": [15], "time_window": [28800, 57600]},
        {"id": 8, "end_index": 0, "capacity": [12], "time_window": [30000, 60000]},
        {"id": 9, "start_index": 1, "end_index": 1, "capacity": [10]},
    ]
    return {"vehicles": vehicles, "jobs": jobs, "shipments": ships,
            "matrices": matrices(points, distances=False)}


def tight(rng):
    """More work than the fleet can do: some jobs stay unassigned."""
    points = [(50, 50)] + [(rng.uniform(0, 100), rng.uniform(0, 100)) for _ in range(30)]
    jobs = [{"id": i, "location_index": i, "service": 1800, "delivery": [1],
             "time_windows": [[28800 + rng.randrange(0, 4) * 3600, 28800 + 6 * 3600]]}
            for i in range(1, 31)]
    vehicles = [{"id": 1, "start_index": 0, "end_index": 0, "capacity": [20],
                 "time_window": [28800, 28800 + 7 * 3600]},
                {"id": 2, "start_index": 0, "end_index": 0, "capacity": [20],
                 "time_window": [28800, 28800 + 7 * 3600]}]
    return {"vehicles": vehicles, "jobs": jobs, "matrices": matrices(points)}


def breaks(rng):
    """Drivers' breaks, one with two windows, beside jobs with windows."""
    points = [(50, 50)] + [(rng.uniform(0, 100), rng.uniform(0, 100)) for _ in range(16)]
    jobs = []
    for i in range(1, 17):
        j = {"id": i, "location_index": i, "service": 600, "delivery": [1]}
        tw = windows(rng, 28800, 57600)
        if tw:
            j["time_windows"] = tw
        jobs.append(j)
    vehicles = [
        {"id": 1, "start_index": 0, "end_index": 0, "capacity": [10],
         "time_window": [28800, 61200],
         "breaks": [{"id": 11, "time_windows": [[41400, 45000]], "service": 1800}]},
        {"id": 2, "start_index": 0, "end_index": 0, "capacity": [10],
         "time_window": [28800, 61200],
         "breaks": [{"id": 21, "time_windows": [[36000, 37800], [46800, 48600]],
                     "service": 900}]},
    ]
    return {"vehicles": vehicles, "jobs": jobs, "matrices": matrices(points)}


def main():
    import vroom

    for name, make in [("tw-jobs", tw_jobs), ("shipments", shipments), ("tight", tight),
                       ("breaks", breaks)]:
        problem = make(random.Random(name))
        path = HERE / f"{name}.json"
        path.write_text(json.dumps(problem, indent=1) + "\n")
        inp = vroom.Input.from_json(str(path))
        # VROOM reports distances when the matrix has them; from_json leaves pyvroom's own
        # flag for that unset.
        inp._distances = any("distances" in m for m in problem["matrices"].values())
        answer = inp.solve(exploration_level=5, nb_threads=1)
        out = answer.to_dict()
        out["summary"]["computing_times"] = {"loading": 0, "solving": 0}
        (HERE / f"{name}.vroom-answer.json").write_text(json.dumps(out, indent=1) + "\n")
        print(name, out["summary"]["cost"], out["summary"]["unassigned"])


if __name__ == "__main__":
    main()
