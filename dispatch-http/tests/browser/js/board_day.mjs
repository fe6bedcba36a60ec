// A dispatcher's day on the board (/console) in headless Chromium, against the real service:
// the day's orders wait unassigned; the dispatcher optimises the date from the board, reads
// the timeline and the map (each selects the other), drags an unserved order onto a route,
// moves an order between routes, tries to move it back (refused: PREVIOUSLY_ON_ROUTE, so it
// stays unassigned and the board says why), puts a late order on a route, dispatches a route
// and then the plan; a driver (driven through the driver API) reports positions and outcomes,
// which the board shows without a reload; the completed route's Reverse is disabled with the
// reason. A read-only key sees every action disabled. Four more vans make the demo day of the
// docs' screenshot (two of them on the road). Finally a day of 1 000 orders on 40 vehicles
// measures the first render and seven drags. Screenshots of each step go to SHOTS. The service runs
// on a simulated clock, so the drivers report at the plan's times of day.
//
// Environment: BASE (the service), KEY (a depot key of permission all), READ_KEY (a read
// key), SHOTS (a folder), CHROMIUM. Prints the day's ids and figures as JSON on stdout.

import { api, check, launch, screenshots, steps } from './harness.mjs';

const BASE = process.env.BASE;
const depot = api(BASE, process.env.KEY);
const shoot = screenshots(process.env.SHOTS || 'shots');
const step = steps();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const ZONE = 'Europe/London';
const localDate = (d) => new Intl.DateTimeFormat('en-CA', { timeZone: ZONE }).format(d);
// The service runs on a simulated clock (serve --simulate): its day is the test's day, and the
// driver reports at its time, which passes faster than the wall clock.
const serviceNow = async () => new Date((await (await fetch(`${BASE}/healthz`)).json()).clock.now);
const clockAt = (d) => new Intl.DateTimeFormat('en-GB', { timeZone: ZONE, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(d);
/** Waits until the service's clock reads `hhmm` (depot time) on the test's day. */
async function until(hhmm) {
  for (;;) {
    const now = await serviceNow();
    if (localDate(now) > DAY || clockAt(now) >= hhmm) return now;
    await sleep(200);
  }
}
const START = await serviceNow();
const DAY = localDate(START);
const BIG_DAY = localDate(new Date(START.getTime() + 86400000));
const result = { day: DAY, screenshots: shoot.taken, figures: {} };

// The fleet and the day's orders (one needs a skill no van has).
const vans = {};
for (const [name, skill] of [['Van A', 'Fridge'], ['Van B', 'Lift']]) {
  const { vehicle } = await depot.post('v2/vehicles', {
    name, skills: [skill], availability: 'shift', shift_start: '08:00', shift_end: '18:00', start_location: 'depot', end_location: 'depot',
    break: true, break_start: '12:00', break_end: '14:00', break_duration: 30,
  });
  vans[name] = vehicle.id;
}
const order = (number, i, extra = {}) => ({
  order_number: number, type: 'delivery', delivery_address: `${i + 1} Board Street`, delivery_date: DAY,
  delivery_lat: 51.50 + 0.004 * Math.cos(i), delivery_lng: -0.12 + 0.006 * Math.sin(i), delivery_duration: 10,
  delivery_time_windows: [{ from: '09:00', to: '17:00' }], customer: { account: `C-${number}`, name: `Customer ${number}` },
  ...extra,
});
const orders = Array.from({ length: 10 }, (_, i) => order(`BRD-${i + 1}`, i, { skills: [i % 2 ? 'Lift' : 'Fridge'] }));
orders.push(order('CRANE-1', 11, { skills: ['Crane'] }));
const created = await depot.post('v2/orders', orders);
result.orders = Object.fromEntries(created.orders.map((o) => [o.order_number, Number(o.id)]));

const browser = await launch();
const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: 'en-GB', timezoneId: 'UTC' });
const page = await context.newPage();
const problems = [];
page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
page.on('console', (m) => {
  if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(`console: ${m.text()}`);
});
// Every answer the page gets is a success but the browser's own favicon probe.
page.on('response', (r) => {
  if (r.status() >= 400 && !r.url().endsWith('/favicon.ico')) problems.push(`${r.status()} from ${r.request().method()} ${r.url()}`);
});
page.on('dialog', (d) => d.accept());

const message = page.locator('#message');
/** Runs `action` and waits until the board settles again (ready or error). */
async function settled(action) {
  await page.evaluate(() => { document.body.dataset.state = 'waiting'; });
  await action();
  await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.state), null, { timeout: 60000 });
}
const lane = (name) => page.getByRole('group', { name: `Timeline of ${name}` });
const stopBlock = (route, n) => page.getByRole('button', { name: new RegExp(`^${route} stop ${n}: `) });
const blocks = (route) => lane(route).locator('.tl-stop');
const text = async (locator) => (await locator.innerText()).trim();

try {
  await page.goto(`${BASE}/console`);
  await page.getByLabel('Access key').fill(process.env.KEY);
  await page.getByLabel('Date').fill(DAY);
  await settled(() => page.getByRole('button', { name: 'Show day' }).click());
  check((await text(message)).startsWith(`No plans on ${DAY}`), `empty day: ${await text(message)}`);
  check(await page.getByRole('heading', { name: 'Unassigned (11)' }).isVisible(), 'the eleven orders wait unassigned');
  check((await text(page.locator('#zone'))) === `Times in ${ZONE}`, 'times in the depot zone');
  await shoot(page, 'unplanned-day');
  step('the day before planning: 11 orders unassigned');

  // Optimise from the board, with its settings, and watch it finish.
  await page.getByRole('button', { name: 'Optimise…' }).click();
  await page.getByRole('dialog', { name: 'Optimise the day' }).waitFor();
  check(await page.getByLabel('Only active vehicles').isChecked(), 'active vehicles by default');
  await page.getByRole('button', { name: 'Start optimisation' }).click();
  await page.waitForFunction(() => /optimised in/.test(document.getElementById('message').textContent), null, { timeout: 60000 });
  const optimised = await text(message);
  check(/2 routes, 10 stops, 1 not placed/.test(optimised), optimised);
  const planId = Number(/Plan (\d+) optimised/.exec(optimised)[1]);
  result.plan_id = planId;
  step(optimised);

  // The timeline: one lane per van, stop blocks in time order, each window behind its block.
  const { plan } = await depot.get(`v2/plans/${planId}`);
  const routeOf = (name) => plan.routes.find((r) => r.name === name);
  result.routes = { 'Van A': routeOf('Van A').id, 'Van B': routeOf('Van B').id };
  // Where the optimiser has each driver take the break, as the service keeps it.
  const { routes: kept } = await depot.get(`console/breaks?plan=${planId}`);
  for (const name of ['Van A', 'Van B']) {
    const n = routeOf(name).stops.length;
    check((await blocks(name).count()) === n, `${name}: ${n} blocks`);
    const xs = [];
    for (let i = 1; i <= n; i += 1) xs.push((await stopBlock(name, i).boundingBox()).x);
    check(xs.every((x, i) => i === 0 || x > xs[i - 1]), `${name}: blocks left to right in visiting order ${xs}`);
    const first = routeOf(name).stops[0];
    const label = await stopBlock(name, 1).getAttribute('aria-label');
    check(label.includes(first.orders[0].order_number) && label.includes('window 09:00–17:00'), label);
    check(await lane(name).locator('.tl-break').count() === 1, `${name}: its break window is drawn`);
    // The break itself at the time the service planned it: inside its window, clear of every
    // stop's service.
    const [planned] = kept.find((k) => k.route_id === routeOf(name).id).breaks;
    const pause = lane(name).getByRole('img', { name: `${name} break ${planned.start_time}–${planned.end_time}` });
    check(await pause.isVisible(), `${name}: the break is drawn where the plan takes it (${planned.start_time}–${planned.end_time})`);
    const [taken, window] = [await pause.boundingBox(), await lane(name).locator('.tl-break').boundingBox()];
    check(taken.x >= window.x - 1 && taken.x + taken.width <= window.x + window.width + 1, `${name}: the break inside its window`);
    for (let i = 1; i <= n; i += 1) {
      const b = await stopBlock(name, i).boundingBox();
      check(b.x + b.width <= taken.x + 1 || b.x >= taken.x + taken.width - 1, `${name}: stop ${i} clear of the break`);
    }
  }
  check(await page.getByRole('button', { name: 'Order CRANE-1' }).isVisible(), 'the unserved order by its number');
  check((await text(page.locator('li.unassigned-order'))).includes('SKILLS'), 'with the optimiser\'s reason');
  check(await page.locator('path.route-line').count() === 2, 'a line per route');
  // Along the roads (OSRM's route service): each line turns at the street corners.
  await page.waitForFunction(() => document.querySelectorAll('path.route-line.on-roads').length === 2, null, { timeout: 20000 });
  check((await text(page.getByRole('article', { name: `Plan ${planId}` }).locator('.travel'))) === 'Travel times: osrm', 'planned on the roads');
  for (const d of await page.locator('path.route-line').evaluateAll((ps) => ps.map((p) => p.getAttribute('d')))) {
    check((d.match(/L/g) ?? []).length > (await blocks('Van A').count()) + 1, `a line with corners: ${d}`);
  }
  check(await page.locator('.grid-layer').count() === 1 && await page.locator('.leaflet-control-scale').count() === 1, 'offline: a grid and a scale bar');

  // Linked: a block selects its marker; a marker selects its block.
  await stopBlock('Van A', 2).click();
  await page.locator('.stop-marker.selected').waitFor();
  check((await text(page.locator('#details h3'))) === 'Van A · stop 2', 'the details of the chosen stop');
  await page.getByRole('button', { name: /^Van B: stop 1, / }).click();
  check((await stopBlock('Van B', 1).getAttribute('class')).includes('selected'), 'the marker selected its block');
  await shoot(page, 'optimised-timeline');
  step('timeline and map linked');

  // Drag the unserved order onto Van A.
  const aBefore = await blocks('Van A').count();
  await settled(() => page.locator('li.unassigned-order', { has: page.getByRole('button', { name: 'Order CRANE-1' }) }).dragTo(lane('Van A')));
  check((await text(message)) === 'CRANE-1 added to Van A.', await text(message));
  check(await blocks('Van A').count() === aBefore + 1, 'Van A has one more stop');
  check(await page.getByRole('heading', { name: 'Unassigned (0)' }).isVisible(), 'nothing unassigned');
  result.figures.small_drag_ms = Number(await page.evaluate(() => document.body.dataset.moveMs));
  result.figures.small_drag_settled_ms = Number(await page.evaluate(() => document.body.dataset.moveSettledMs));
  // Van A's line is asked again for its new stop and drawn along the roads.
  await page.waitForFunction(() => document.querySelectorAll('path.route-line.on-roads').length === 2, null, { timeout: 20000 });
  await shoot(page, 'unserved-dragged-onto-route');
  step(`CRANE-1 dragged onto Van A (${result.figures.small_drag_ms} ms)`);

  // Move Van A's first order to Van B by dragging its block.
  const moved = (await stopBlock('Van A', 1).getAttribute('aria-label')).match(/: (BRD-\d+),/)[1];
  result.moved = moved;
  await settled(() => stopBlock('Van A', 1).dragTo(lane('Van B')));
  check((await text(message)) === `${moved} moved from Van A to Van B.`, await text(message));
  check((await stopBlock('Van B', await blocks('Van B').count()).getAttribute('aria-label')).includes(moved), 'appended to Van B');
  await shoot(page, 'moved-between-routes');

  // Back to Van A with the keyboard path: refused, so it stays unassigned, and the board says why.
  await stopBlock('Van B', await blocks('Van B').count()).click();
  await page.getByLabel(`Move ${moved} to`).selectOption({ label: 'Van A' });
  await settled(() => page.getByRole('button', { name: `Move ${moved}` }).click());
  const refused = await text(message);
  check(refused.includes('PREVIOUSLY_ON_ROUTE') && refused.includes('stays unassigned'), refused);
  const item = page.locator('li.unassigned-order', { has: page.getByRole('button', { name: `Order ${moved}` }) });
  check((await text(item)).includes('PREVIOUSLY_ON_ROUTE'), 'the refusal shows on the unassigned order');
  await shoot(page, 'refused-move-stays-unassigned');
  step(`${moved}: moved to Van B, refused back on Van A (${refused})`);

  // A late order: its window has closed by the time Van B would get there.
  const { orders: [late] } = await depot.post('v2/orders', [order('EARLY-1', 12, { delivery_time_windows: [{ from: '08:00', to: '08:20' }] })]);
  result.orders['EARLY-1'] = Number(late.id);
  await settled(() => page.getByRole('button', { name: 'Refresh now' }).click());
  await page.getByRole('button', { name: 'Order EARLY-1' }).waitFor();
  await settled(() => page.locator('li.unassigned-order', { has: page.getByRole('button', { name: 'Order EARLY-1' }) }).dragTo(lane('Van B')));
  const lastB = stopBlock('Van B', await blocks('Van B').count());
  check((await lastB.getAttribute('aria-label')).includes('outside its window'), await lastB.getAttribute('aria-label'));
  check((await lastB.getAttribute('class')).includes('late'), 'the late stop stands out');
  check(await page.getByRole('listitem', { name: 'Route Van B' }).getByText('outside a window').isVisible(), 'the route says so');

  // Dispatch Van A, then the plan.
  await settled(() => page.getByRole('button', { name: 'Dispatch Van A' }).click());
  check((await text(message)) === 'Van A dispatched.', await text(message));
  check(await page.getByRole('button', { name: 'Dispatch Van A' }).isDisabled(), 'a dispatched route cannot be dispatched again');
  check((await text(page.getByRole('listitem', { name: 'Route Van A' }).locator('.reasons'))).includes('Dispatch: already dispatched.'), 'and says why');
  await settled(() => page.getByRole('button', { name: `Dispatch plan ${planId}` }).click());
  check(await page.getByRole('button', { name: `Dispatch plan ${planId}` }).isDisabled(), 'the plan is dispatched');
  await shoot(page, 'dispatched');
  step('Van A and then the plan dispatched');

  // The driver of Van A works the route; the board follows without a reload.
  const { driver_credential: credential } = await depot.post(`v2/vehicles/${vans['Van A']}/driver-credentials`, { name: 'board test' });
  const driver = api(BASE, credential.credential);
  const routeA = result.routes['Van A'];
  await driver.post(`driver/routes/${routeA}/start`, { lat: 51.5, lng: -0.12 });
  // Once the board shows the route under way, a live update redraws only the routes that
  // changed: Van B's lane stays the element it is (marked here), Van A's is drawn anew.
  await page.getByRole('listitem', { name: 'Route Van A' }).getByText('in progress').waitFor({ timeout: 20000 });
  await lane('Van A').evaluate((e) => { e.dataset.probe = 'drawn before'; });
  await lane('Van B').evaluate((e) => { e.dataset.probe = 'drawn before'; });
  const { route: driven } = await driver.get(`driver/routes/${routeA}`);
  const [s1, s2] = driven.stops;
  // The van reaches its first stop at its planned time on the service's clock.
  const reached = await until(s1.estimated_arrival_time);
  const at = (ago) => new Date(reached.getTime() - ago * 1000).toISOString();
  await driver.post(`driver/routes/${routeA}/positions`, { positions: [{ lat: 51.501, lng: -0.121, time: at(60) }, { lat: s1.lat, lng: s1.lng, time: at(0) }] });
  await driver.post(`driver/stops/${s1.id}/arrive`, {});
  await driver.post(`driver/stops/${s1.id}/complete`, {});
  const atSecond = await until(s2.estimated_arrival_time);
  await driver.post(`driver/routes/${routeA}/positions`, { positions: [{ lat: s2.lat, lng: s2.lng, time: atSecond.toISOString() }] });
  await driver.post(`driver/stops/${s2.id}/arrive`, {});
  await driver.post(`driver/stops/${s2.id}/fail`, { reason: 'Customer not in' });
  const polled = Date.now();
  await page.locator('.vehicle-marker').waitFor({ timeout: 20000 });
  await page.waitForFunction(() => /failed/.test(document.querySelector('.tl-lane .tl-stop.status-failed')?.getAttribute('aria-label') ?? ''), null, { timeout: 20000 });
  result.figures.live_update_s = (Date.now() - polled) / 1000;
  check(await lane('Van B').getAttribute('data-probe') === 'drawn before', 'a live update leaves an unchanged route\'s lane as it was');
  check(await lane('Van A').getAttribute('data-probe') === null, 'and draws the changed route\'s lane anew');
  result.figures.live_update_ms = Number(await page.evaluate(() => document.body.dataset.updateMs));
  check((await stopBlock('Van A', 1).getAttribute('aria-label')).includes('delivered'), 'stop 1 delivered');
  check((await stopBlock('Van A', 2).getAttribute('aria-label')).includes('failed (Customer not in)'), 'stop 2 failed with the reason');
  check((await stopBlock('Van A', 3).getAttribute('aria-label')).includes('now expected'), 'a re-estimated time for the next stop');
  check(await page.getByRole('listitem', { name: 'Route Van A' }).getByText('in progress').isVisible(), 'the route is in progress');
  check((await page.locator('.vehicle-marker').getAttribute('title')).startsWith('Van A: reported at'), 'the van on the map');
  // The timeline's "now" is the service's (simulated) time, not the browser's, and runs on with it.
  const minutesAt = (hhmm) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
  const nowLine = lane('Van A').locator('.tl-now');
  for (let look = 0; look < 2; look += 1) {
    const before = minutesAt(clockAt(await serviceNow()));
    const shown = minutesAt((await nowLine.getAttribute('title')).replace('Now ', ''));
    const after = minutesAt(clockAt(await serviceNow()));
    check(shown >= before - 2 && shown <= after + 1, `the now line at ${shown} min, the service's clock between ${before} and ${after}`);
    await sleep(3000);
  }
  await shoot(page, 'driver-reports');
  step(`the driver's reports on the board after ${result.figures.live_update_s} s`);

  for (const s of driven.stops.slice(2)) {
    await driver.post(`driver/stops/${s.id}/arrive`, {});
    await driver.post(`driver/stops/${s.id}/complete`, {});
  }
  await driver.post(`driver/routes/${routeA}/complete`, {});
  await page.getByRole('listitem', { name: 'Route Van A' }).getByText('completed', { exact: true }).waitFor({ timeout: 20000 });
  const reverse = page.getByRole('button', { name: 'Reverse Van A' });
  check(await reverse.isDisabled(), 'Reverse is disabled on a completed route');
  check((await text(page.getByRole('listitem', { name: 'Route Van A' }).locator('.reasons'))).includes('Reverse: the driver completed the route.'), 'with the reason');
  check(await page.getByRole('button', { name: 'Reverse Van B' }).isEnabled(), 'Van B can still be reversed');
  await shoot(page, 'completed-route');
  step('Van A completed: Reverse disabled with the reason');

  // A read-only key: every action disabled, saying why.
  const reader = await context.newPage();
  await reader.goto(`${BASE}/console#date=${DAY}`);
  await reader.getByLabel('Access key').fill(process.env.READ_KEY);
  await reader.getByRole('button', { name: 'Show day' }).click();
  await reader.waitForFunction(() => document.body.dataset.state === 'ready');
  check(await reader.getByRole('button', { name: 'Reverse Van B' }).isDisabled(), 'read key: no reverse');
  check(await reader.getByRole('button', { name: 'Optimise…' }).isDisabled(), 'read key: no optimise');
  check((await reader.locator('#optimise-why').innerText()).includes('this access key may only read'), 'read key: the reason');
  await reader.close();

  // The demo day: four more vans and forty orders on the same date, optimised and dispatched;
  // two drivers are on the road (one stop failed), and orders no van can take wait unassigned.
  const demoVans = [];
  for (const name of ['Van C', 'Van D', 'Van E', 'Van F']) {
    const { vehicle } = await depot.post('v2/vehicles', {
      name, availability: 'shift', shift_start: '08:00', shift_end: '14:30', start_location: 'depot', end_location: 'depot',
      break: true, break_start: '11:00', break_end: '13:00', break_duration: 30,
    });
    demoVans.push({ id: vehicle.id, name });
  }
  const streets = ['Mill Lane', 'Church Road', 'Station Road', 'Park Avenue', 'Victoria Street', 'Green Lane', 'Manor Road', 'Kings Road'];
  const demoOrders = Array.from({ length: 40 }, (_, i) => ({
    order_number: `DEMO-${String(i + 1).padStart(3, '0')}`, type: 'delivery', delivery_date: DAY,
    delivery_address: `${(i * 7) % 90 + 2} ${streets[i % streets.length]}`,
    delivery_lat: 51.5 + 0.018 * Math.cos(i * 2.4) * (0.4 + (i % 5) / 8), delivery_lng: -0.12 + 0.028 * Math.sin(i * 2.4) * (0.4 + (i % 5) / 8),
    delivery_duration: 8 + (i % 4) * 3,
    delivery_time_windows: [[{ from: '09:00', to: '11:00' }], [{ from: '11:00', to: '14:00' }], [{ from: '08:30', to: '14:00' }]][i % 3],
    customer: { account: `D-${i + 1}`, name: `${['Baker', 'Cole', 'Dunn', 'Ellis', 'Ford'][i % 5]} & Sons ${i + 1}` },
    ...(i % 13 === 5 ? { skills: ['Crane'] } : {}),
  }));
  const { orders: demoCreated } = await depot.post('v2/orders', demoOrders);
  const demo = await depot.post('v2/plans/optimise/orders-for-ids', {
    orders: demoCreated.map((o) => ({ id: Number(o.id) })), settings: {}, vehicles: demoVans.map((v) => ({ id: v.id })),
  });
  for (;;) {
    const { optimisation } = await depot.get(`v2/plans/optimise/${demo.optimisation.id}`);
    if (!optimisation.in_progress) break;
    await sleep(300);
  }
  await depot.post(`v2/plans/${demo.plan.id}/dispatch`);
  const { plan: demoPlan } = await depot.get(`v2/plans/${demo.plan.id}`);
  check(demoPlan.routes.length >= 2, `the demo plan: ${demoPlan.routes.length} routes`);
  const [first, second] = demoPlan.routes;
  for (const [n, r] of [[4, first], [2, second]]) {
    const { driver_credential: c } = await depot.post(`v2/vehicles/${r.vehicle.vehicle_id}/driver-credentials`, { name: `${r.name} phone` });
    const d = api(BASE, c.credential);
    await d.post(`driver/routes/${r.id}/start`, { lat: 51.5, lng: -0.12 });
    const { route: live } = await d.get(`driver/routes/${r.id}`);
    for (const [k, stop] of live.stops.slice(0, n).entries()) {
      await d.post(`driver/routes/${r.id}/positions`, { positions: [{ lat: stop.lat, lng: stop.lng, time: (await serviceNow()).toISOString() }] });
      await d.post(`driver/stops/${stop.id}/arrive`, {});
      if (r === second && k === 1) await d.post(`driver/stops/${stop.id}/fail`, { reason: 'Shop closed' });
      else await d.post(`driver/stops/${stop.id}/complete`, {});
    }
    const next = live.stops[n];
    await d.post(`driver/routes/${r.id}/positions`, { positions: [{ lat: (next.lat + live.stops[n - 1].lat) / 2, lng: (next.lng + live.stops[n - 1].lng) / 2, time: (await serviceNow()).toISOString() }] });
  }
  // Opened afresh, the map fits the whole day.
  await page.reload();
  await page.waitForFunction(() => document.body.dataset.state === 'ready', null, { timeout: 30000 });
  await page.waitForFunction(() => document.querySelectorAll('.vehicle-marker').length >= 2, null, { timeout: 20000 });
  await page.waitForFunction((n) => document.querySelectorAll('path.route-line.on-roads').length === n, demoPlan.routes.length + 2, { timeout: 20000 });
  check(await page.getByRole('listitem', { name: `Route ${first.name}` }).getByText('in progress').isVisible(), `${first.name} on the road`);
  check(await page.getByRole('heading', { name: /^Unassigned \([1-9]\d*\)$/ }).isVisible(), 'orders wait unassigned');
  check(await page.getByRole('button', { name: 'Order DEMO-006' }).isVisible(), 'the order needing a crane among them');
  await page.mouse.move(5, 5);
  await shoot(page, 'demo-day');
  step(`the demo day: ${demoPlan.routes.length + 2} routes, ${demoPlan.unserved.length} orders unassigned by the optimiser`);

  // A large day: 1 000 orders on 40 vehicles; the first render and a drag, measured.
  const trucks = [];
  for (let i = 1; i <= 40; i += 1) {
    const { vehicle } = await depot.post('v2/vehicles', { name: `Truck ${String(i).padStart(2, '0')}`, availability: 'shift', shift_start: '08:00', shift_end: '17:00', start_location: 'depot', end_location: 'depot' });
    trucks.push({ id: vehicle.id });
  }
  for (let batch = 0; batch < 10; batch += 1) {
    await depot.post('v2/orders', Array.from({ length: 100 }, (_, j) => {
      const i = batch * 100 + j;
      return { order_number: `BIG-${String(i).padStart(4, '0')}`, type: 'delivery', delivery_date: BIG_DAY, delivery_address: `${i} Long Road`,
        delivery_lat: 51.5 + 0.08 * Math.cos(i * 2.4) * ((i % 97) / 97), delivery_lng: -0.12 + 0.12 * Math.sin(i * 2.4) * ((i % 89) / 89), delivery_duration: 17 };
    }));
  }
  const big = await depot.post('v2/plans/optimise/orders', { delivery_date: BIG_DAY, settings: {}, vehicles: trucks });
  for (;;) {
    const { optimisation } = await depot.get(`v2/plans/optimise/${big.optimisation.id}`);
    if (!optimisation.in_progress) break;
    await sleep(500);
  }
  const { plan: bigPlan } = await depot.get(`v2/plans/${big.plan.id}`);
  result.figures.big_routes = bigPlan.routes.length;
  result.figures.big_stops = bigPlan.routes.reduce((n, r) => n + r.stops.length, 0);
  await page.getByLabel('Date').fill(BIG_DAY);
  const clicked = Date.now();
  await settled(() => page.getByRole('button', { name: 'Show day' }).click());
  result.figures.first_render_ms = Date.now() - clicked;
  result.figures.render_only_ms = Number(await page.evaluate(() => document.body.dataset.renderMs));
  check(await page.locator('.tl-stop').count() === result.figures.big_stops, 'every stop on the timeline');
  // Several drags between the lanes in view, each checked: the figures are their median and
  // worst (the first drag also pays for the page's first use of the code).
  const lanes = bigPlan.routes.filter((r) => r.stops.length >= 4).slice(0, 4).map((r) => r.name);
  const drags = [];
  for (const [i, j] of [[0, 1], [2, 3], [1, 2], [3, 0], [0, 2], [1, 3], [2, 0]]) {
    const [one, two] = [lanes[i], lanes[j]];
    const [oneStops, twoStops] = [await blocks(one).count(), await blocks(two).count()];
    const bigMoved = (await stopBlock(one, 1).getAttribute('aria-label')).match(/: (BIG-\d+),/)[1];
    await settled(() => stopBlock(one, 1).dragTo(lane(two)));
    check((await text(message)) === `${bigMoved} moved from ${one} to ${two}.`, await text(message));
    check(await blocks(one).count() === oneStops - 1 && await blocks(two).count() === twoStops + 1, 'one stop fewer and one more');
    check((await stopBlock(two, twoStops + 1).getAttribute('aria-label')).includes(bigMoved), `${bigMoved} at the end of ${two}`);
    check(await page.locator('.tl-stop').count() === result.figures.big_stops, 'every stop still on the timeline');
    drags.push(await page.evaluate(() => [Number(document.body.dataset.moveMs), Number(document.body.dataset.moveSettledMs)]));
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  result.figures.big_drags = drags.length;
  result.figures.big_drag_ms = drags.map(([drawn]) => drawn);
  result.figures.big_drag_median_ms = median(drags.map(([drawn]) => drawn));
  result.figures.big_drag_worst_ms = Math.max(...drags.map(([drawn]) => drawn));
  result.figures.big_drag_settled_median_ms = median(drags.map(([, answered]) => answered));
  // Live updates of the large day: the first after the drags may draw the board afresh (the
  // plan's record changed with them); in the next nothing changed, so nothing is redrawn.
  for (let poll = 0; poll < 2; poll += 1) {
    const updated = await text(page.locator('#updated'));
    await page.waitForFunction((shown) => document.getElementById('updated').textContent.trim() !== shown, updated, { timeout: 25000 });
  }
  result.figures.big_update_ms = Number(await page.evaluate(() => document.body.dataset.updateMs));
  const redrawn = await page.evaluate(() => document.body.dataset.updateRoutes);
  check(redrawn === '0', `a live update of an unchanged large day redraws no route (${redrawn})`);
  await shoot(page, 'large-day');
  step(`large day: ${result.figures.big_stops} stops on ${result.figures.big_routes} routes; first render ${result.figures.first_render_ms} ms, drags drawn in ${result.figures.big_drag_ms.join(', ')} ms, answered in ${result.figures.big_drag_settled_median_ms} ms (median); a live update ${result.figures.big_update_ms} ms`);
  check(problems.length === 0, problems.join('\n'));
} catch (error) {
  await shoot(page, 'failure').catch(() => {});
  console.error(`messages: ${await message.innerText().catch(() => '?')}`);
  console.error(problems.join('\n'));
  throw error;
} finally {
  await browser.close();
}
console.log(JSON.stringify(result));
