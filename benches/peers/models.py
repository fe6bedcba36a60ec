"""Instance readers and the peers' models: PyVRP and OR-Tools on Solomon / Homberger (VRPTW) and
Li & Lim (PDPTW), pyvroom on VROOM-style JSON. Every peer returns routes in `dispatch solve`'s
output shape so one checker (examples/check_solution.rs) judges all of them.

Text instances use the DIMACS convention (every arc's distance and time truncated to one
decimal), the convention of the `distance` best-known solutions; times and distances are
integers in tenths."""

import math
import time
from datetime import timedelta


def read_text(path):
    """(kind, vehicles, capacity, nodes) with nodes [(no, x, y, demand, ready, due, service,
    pickup, delivery)] in file order; kind is 'solomon' or 'lilim'."""
    lines = [l.split() for l in open(path) if l.strip()]
    if len(lines[0]) == 3 and all(t.lstrip("-").isdigit() for t in lines[0]):
        k, q, _ = map(int, lines[0])
        nodes = [tuple(int(t) for t in l[:9]) for l in lines[1:]]
        return "lilim", k, q, nodes
    i = next(n for n, l in enumerate(lines) if l and l[0] == "VEHICLE")
    k, q = int(lines[i + 2][0]), int(lines[i + 2][1])
    nodes = []
    for l in lines[i + 3:]:
        if len(l) >= 7 and all(t.lstrip("-").isdigit() for t in l[:7]):
            nodes.append(tuple(int(t) for t in l[:7]) + (0, 0))
    return "solomon", k, q, nodes


def dimacs_matrix(nodes):
    """Arc lengths in tenths, truncated (DIMACS)."""
    pts = [(n[1], n[2]) for n in nodes]
    return [[int(10 * math.hypot(a[0] - b[0], a[1] - b[1])) for b in pts] for a in pts]


def solve_pyvrp(path, seconds, seed=1):
    import pyvrp
    from pyvrp.stop import MaxRuntime

    kind, k, q, nodes = read_text(path)
    dist = dimacs_matrix(nodes)
    m = pyvrp.Model()
    locs = [m.add_location(x=n[1], y=n[2]) for n in nodes]
    d = nodes[0]
    depot = m.add_depot(locs[0])
    m.add_vehicle_type(num_available=k, capacity=q, start_depot=depot, end_depot=depot,
                       tw_early=d[4] * 10, tw_late=d[5] * 10)
    clients, shipments = [], []
    for v, n in enumerate(nodes[1:], start=1):
        if kind == "solomon":
            m.add_client(locs[v], delivery=n[3], service_duration=n[6] * 10,
                         tw_early=n[4] * 10, tw_late=n[5] * 10)
            clients.append(n[0])
        elif n[8]:  # a Li & Lim pickup: DELIVERY names its delivery task
            dl = nodes[n[8]]
            m.add_shipment(locs[v], locs[n[8]], pickup_tw_early=n[4] * 10,
                           pickup_tw_late=n[5] * 10, pickup_service_duration=n[6] * 10,
                           delivery_tw_early=dl[4] * 10, delivery_tw_late=dl[5] * 10,
                           delivery_service_duration=dl[6] * 10, amount=n[3])
            shipments.append((n[0], dl[0]))
    for i, a in enumerate(locs):
        for j, b in enumerate(locs):
            if i != j:
                m.add_edge(a, b, distance=dist[i][j], duration=dist[i][j])
    start = time.monotonic()
    res = m.solve(stop=MaxRuntime(seconds), seed=seed, display=False)
    took = time.monotonic() - start
    routes = []
    for r in res.best.routes():
        visits = []
        for act in r:
            if act.is_pickup():
                visits.append(shipments[act.idx][0])
            elif act.is_delivery():
                visits.append(shipments[act.idx][1])
            elif act.is_client():
                visits.append(clients[act.idx])
        routes.append(visits)
    return {"routes": routes, "elapsed_s": took}


def solve_ortools(path, seconds):
    from ortools.constraint_solver import pywrapcp, routing_enums_pb2

    kind, k, q, nodes = read_text(path)
    dist = dimacs_matrix(nodes)
    n = len(nodes)
    manager = pywrapcp.RoutingIndexManager(n, k, 0)
    routing = pywrapcp.RoutingModel(manager)
    arc = routing.RegisterTransitCallback(
        lambda i, j: dist[manager.IndexToNode(i)][manager.IndexToNode(j)])
    routing.SetArcCostEvaluatorOfAllVehicles(arc)
    transit = routing.RegisterTransitCallback(
        lambda i, j: nodes[manager.IndexToNode(i)][6] * 10
        + dist[manager.IndexToNode(i)][manager.IndexToNode(j)])
    horizon = nodes[0][5] * 10
    routing.AddDimension(transit, horizon, horizon, False, "time")
    tdim = routing.GetDimensionOrDie("time")
    for v, node in enumerate(nodes):
        idx = manager.NodeToIndex(v) if v else None
        if idx is not None:
            tdim.CumulVar(idx).SetRange(node[4] * 10, node[5] * 10)
    for veh in range(k):
        tdim.CumulVar(routing.Start(veh)).SetRange(nodes[0][4] * 10, horizon)
        tdim.CumulVar(routing.End(veh)).SetRange(nodes[0][4] * 10, horizon)
    demand = routing.RegisterUnaryTransitCallback(lambda i: nodes[manager.IndexToNode(i)][3])
    routing.AddDimensionWithVehicleCapacity(demand, 0, [q] * k, kind == "solomon", "load")
    if kind == "lilim":
        solver = routing.solver()
        for v, node in enumerate(nodes):
            if v and node[8]:  # a pickup: DELIVERY names its delivery node
                p, d = manager.NodeToIndex(v), manager.NodeToIndex(node[8])
                routing.AddPickupAndDelivery(p, d)
                solver.Add(routing.VehicleVar(p) == routing.VehicleVar(d))
                solver.Add(tdim.CumulVar(p) <= tdim.CumulVar(d))
    params = pywrapcp.DefaultRoutingSearchParameters()
    params.first_solution_strategy = (
        routing_enums_pb2.FirstSolutionStrategy.PARALLEL_CHEAPEST_INSERTION)
    params.local_search_metaheuristic = (
        routing_enums_pb2.LocalSearchMetaheuristic.GUIDED_LOCAL_SEARCH)
    params.time_limit.FromTimedelta(timedelta(seconds=seconds))
    start = time.monotonic()
    sol = routing.SolveWithParameters(params)
    took = time.monotonic() - start
    if sol is None:
        return {"routes": [], "elapsed_s": took}
    routes = []
    for veh in range(k):
        i, r = sol.Value(routing.NextVar(routing.Start(veh))), []
        while not routing.IsEnd(i):
            r.append(nodes[manager.IndexToNode(i)][0])
            i = sol.Value(routing.NextVar(i))
        if r:
            routes.append(r)
    return {"routes": routes, "elapsed_s": took}


def solve_vroom(path, exploration, threads, timeout=None):
    import vroom

    inp = vroom.Input.from_json(path)
    start = time.monotonic()
    kw = {"exploration_level": exploration, "nb_threads": threads}
    if timeout:
        kw["timeout"] = timedelta(seconds=timeout)
    sol = inp.solve(**kw)
    took = time.monotonic() - start
    out = sol.to_dict()
    routes = [{"vehicle": r["vehicle"],
               "steps": [{"type": s["type"], "id": s["id"]} for s in r["steps"]
                         if s["type"] not in ("start", "end")]}
              for r in out["routes"]]
    return {"routes": routes, "elapsed_s": took, "cost": out["summary"]["cost"]}
