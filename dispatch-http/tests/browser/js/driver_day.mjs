// A driver's whole day in the driver's app (/driver-app/) on a phone, against the real service:
// the dispatcher sets up and dispatches a route and hands the app over by link; the driver
// checks the van in, starts, and works four stops — a call, an arrival, a signature, a photo
// (whose answer is lost on the way back, so the app sends it again), the stop questionnaire
// with every answer type, a completion — then loses the network for a partial delivery, a
// failed one and a photo while the dispatcher reverses the route, comes back, and finishes the
// day — the app opened again offline from its service worker, the last stop finished meanwhile
// by the van's second phone (the app says so and records nothing twice), tomorrow's route
// dispatched and taken away again — and checks the app is installable. Finally the depot
// revokes the phone. Prints the day's ids as JSON on stdout; the Rust
// test (tests/driver_app_browser.rs) checks the depot's reads and webhooks against them.
//
// Environment: BASE (the service), KEY (a depot key of permission all), TODAY and TOMORROW (the
// depot's dates, YYYY-MM-DD), SHOTS (a folder).

import { api, check, launch, noisePng, phone, screenshots, steps, stroke, tapUntil } from './harness.mjs';

const BASE = process.env.BASE;
const depot = api(BASE, process.env.KEY);
const shoot = screenshots(process.env.SHOTS || 'shots');
const step = steps();
const today = process.env.TODAY;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// The dispatcher's side: a van, four orders, an optimised and dispatched plan, a credential.
const ORDERS = [
  { number: 'APP-1', items: [['BREAD', 2], ['MILK', 1]] },
  { number: 'APP-2', items: [['TILES', 10], ['GLUE', 2]] },
  { number: 'APP-3', items: [['SOFA', 1]] },
  { number: 'APP-4', items: [] },
];
const { vehicle } = await depot.post('v2/vehicles',
  { name: 'Van 7', availability: 'always', start_location: 'depot', end_location: 'depot' });
const created = await depot.post('v2/orders', ORDERS.map((o, i) => ({
  order_number: o.number, type: 'delivery', delivery_address: `${i + 1} High St`,
  delivery_contact_number: `07000 00000${i}`, delivery_notes: i === 0 ? 'Ring twice' : undefined,
  delivery_lat: 51.502 + 0.002 * i, delivery_lng: -0.118 - 0.001 * i, delivery_duration: 5, delivery_date: today,
  delivery_time_windows: [{ from: '06:00', to: '22:00' }],
  ...(o.items.length ? { line_items: o.items.map(([code, q]) => ({ product_code: code, product_name: code, product_quantity: q })) } : {}),
})));
const orderIds = Object.fromEntries(created.orders.map((o, i) => [ORDERS[i].number, Number(o.id)]));
const started = await depot.post('v2/plans/optimise/orders', { delivery_date: today, settings: {} });
for (;;) {
  const { optimisation } = await depot.get(`v2/plans/optimise/${started.optimisation.id}`);
  if (!optimisation.in_progress) break;
  await sleep(400);
}
const planId = started.plan.id;
const { plan } = await depot.get(`v2/plans/${planId}`);
const routeId = plan.routes[0].id;
check(plan.routes[0].stops.length === 4, 'one route with the four orders');
await depot.post(`v2/plans/${planId}/dispatch`);
const { driver_credential: credential } = await depot.post(`v2/vehicles/${vehicle.id}/driver-credentials`, { name: 'Sam' });
const link = `${BASE}/driver-app/#credential=${credential.credential}`;
// The van's second phone (a driver's own, say): it finishes a stop the app has queued offline.
const { driver_credential: secondPhone } = await depot.post(`v2/vehicles/${vehicle.id}/driver-credentials`, { name: 'Second phone' });
step(`dispatched route ${routeId}; the driver opens ${BASE}/driver-app/#credential=…`);

const browser = await launch();
const context = await phone(browser, { origin: BASE });
const page = await context.newPage();
const problems = [];
page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
// The browser's own line for each request the network refused is expected offline.
page.on('console', (m) => {
  if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(`console: ${m.text()}`);
});
const waiting = page.getByRole('heading', { name: /waiting to be sent/ });
const sent = async (what) => {
  await waiting.waitFor({ state: 'hidden', timeout: 40000 }).catch(async () => {
    throw new Error(`${what}: still waiting: ${await page.locator('#outbox').innerText()}`);
  });
};

try {
  await page.goto(link);
  await page.getByRole('heading', { name: 'Your routes' }).waitFor();
  check(!page.url().includes('#'), `the code left the address bar: ${page.url()}`);
  const routeCard = page.getByRole('button', { name: /Today: / });
  await routeCard.waitFor();
  await page.waitForFunction(() => navigator.serviceWorker?.controller || navigator.serviceWorker?.ready);
  await shoot(page, 'routes');
  step('the routes screen');

  // A refresh that changes nothing leaves the cards where they are: a tap under way lands.
  const cardBefore = await routeCard.elementHandle();
  const lastDay = new Date(Date.parse(`${today}T12:00:00Z`) + 6 * 86400000).toISOString().slice(0, 10);
  const refreshed = page.waitForResponse((r) => r.url().includes(`driver/day?date=${lastDay}`));
  await page.evaluate(() => window.dispatchEvent(new Event('online')));
  await refreshed;
  await sleep(1000);
  check(await cardBefore.evaluate((el) => el.isConnected), 'a refresh that changed nothing replaced the route card');
  step('a refresh keeps the unchanged cards');

  // Installable: the manifest as Chromium reads it, a service worker in control of the app.
  const cdp = await context.newCDPSession(page);
  const { url: manifestUrl, errors: manifestErrors, data: manifestText } = await cdp.send('Page.getAppManifest');
  check(manifestUrl.endsWith('/driver-app/manifest.webmanifest') && manifestErrors.length === 0, `the manifest: ${manifestUrl} ${JSON.stringify(manifestErrors)}`);
  const manifest = JSON.parse(manifestText);
  check(manifest.display === 'standalone' && manifest.start_url && manifest.icons.some((i) => i.sizes === '512x512') && manifest.icons.some((i) => i.sizes === '192x192'), manifestText);
  // A test's browser context is off the record, where Chromium never offers to install; every
  // other reason it would give is a failure.
  const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
  const blocking = installabilityErrors.filter((e) => e.errorId !== 'in-incognito');
  check(blocking.length === 0, `installable: ${JSON.stringify(installabilityErrors)}`);
  await cdp.detach();
  const worker = await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
    const registration = await navigator.serviceWorker.getRegistration();
    return { scope: registration?.scope, active: registration?.active?.state, controlled: Boolean(navigator.serviceWorker.controller) };
  });
  check(worker.scope === `${BASE}/driver-app/` && worker.active === 'activated', `the service worker: ${JSON.stringify(worker)}`);
  step(`installable: manifest and service worker (${worker.scope})`);

  // The van check before the start.
  await tapUntil(routeCard, page.getByRole('heading', { name: /Van check/ }));
  check(await page.getByRole('button', { name: /^Start the route/ }).count() === 0, 'no start before the check-in');
  await shoot(page, 'check-in');
  await page.getByLabel('Tyres and lights fine? (required)').tap();
  await page.getByRole('button', { name: 'Submit the van check' }).tap();
  await page.getByRole('button', { name: 'Start the route' }).tap();
  await sent('check-in and start');
  await page.getByText('on the road').first().waitFor();
  step('checked in and started');

  const stopButton = (i) => page.getByRole('button', { name: new RegExp(`^Stop ${i}: `) });
  // The van drives to each stop it opens (positions for the track and the ETAs).
  let drive = 0;
  const openStop = async (address) => {
    drive += 1;
    await context.setGeolocation({ latitude: 51.5 + 0.002 * drive, longitude: -0.118 - 0.001 * drive });
    await tapUntil(page.getByRole('button', { name: new RegExp(`^Stop \\d: ${address},`) }),
      page.getByRole('heading', { name: new RegExp(`^Stop \\d: ${address}`) }));
  };
  const backToRoute = () => tapUntil(page.getByRole('button', { name: 'Back to the route' }), stopButton(1));
  await shoot(page, 'route');
  const address = (label) => label.match(/^Stop \d: ([^,]+),/)[1];
  // Opens the stop still to do that holds `orderNumber`, as a driver finds it on the list.
  const stopOf = async (orderNumber) => {
    const todo = page.getByRole('button', { name: /^Stop \d: .*, to do$/ });
    const labels = await Promise.all((await todo.all()).map((b) => b.getAttribute('aria-label')));
    for (const label of labels) {
      await openStop(address(label));
      if (await page.getByText(orderNumber, { exact: true }).count()) return address(label);
      await backToRoute();
    }
    throw new Error(`no stop to do for ${orderNumber}`);
  };

  // Stop 1: call, arrive, sign, photograph (the answer is lost), the questionnaire, complete.
  await stopOf('APP-1');
  await shoot(page, 'stop');
  const call = page.getByRole('link', { name: /^Call 07000/ });
  check((await call.getAttribute('href')).startsWith('tel:'), 'the number is a tel: link');
  await call.evaluate((a) => a.addEventListener('click', (e) => e.preventDefault(), { once: true }));
  await call.tap();
  check((await page.getByRole('link', { name: 'Navigate (maps app)' }).getAttribute('href')).startsWith('geo:'), 'a geo: link');
  await page.getByRole('button', { name: 'I have arrived' }).tap();
  await page.getByText('You are at this stop.').waitFor();
  // Nothing waits any more, so the page holds still under the finger.
  await sent('the call and the arrival');
  await stroke(page, page.getByRole('img', { name: 'Signature pad: the customer signs here' }),
    [[0.1, 0.6], [0.3, 0.3], [0.5, 0.7], [0.7, 0.3], [0.9, 0.6]]);
  await page.getByLabel('Signed by', { exact: true }).fill('Ann Lee');
  // Chromium takes a tap right after a stroke sent over CDP as a second finger (no click).
  await page.getByRole('button', { name: 'Save the signature' }).click();
  await page.getByText('Signature saved.').waitFor();
  await sent('signature');
  let lost = 0;
  await page.route('**/driver/stops/*/photos', async (route) => {
    if (lost === 0) {
      lost += 1;
      await route.fetch(); // it reaches the service, and its answer is lost
      await route.abort('connectionreset');
    } else {
      await route.continue();
    }
  });
  await page.getByLabel('Take photos').setInputFiles({ name: 'door.png', mimeType: 'image/png', buffer: noisePng(2400, 1800, 11) });
  await page.getByRole('button', { name: 'Save the photos' }).tap();
  await page.getByRole('heading', { name: /1 action waiting to be sent/ }).waitFor();
  await shoot(page, 'photo-waiting');
  await sent('the photo sent again after its answer was lost');
  await page.unroute('**/driver/stops/*/photos');
  check(lost === 1, 'the photo upload lost one answer');
  step('signature, and a photo whose answer was lost, sent again');

  await page.getByLabel('Left in a safe place? (required)').tap();
  await page.getByLabel('Where exactly?').fill('Behind the blue gate');
  await page.getByLabel('Handed to').selectOption('Neighbour');
  await page.getByLabel('Dry').tap();
  await page.getByLabel('Sealed').tap();
  await stroke(page, page.getByRole('img', { name: 'Customer signature: signature pad' }), [[0.2, 0.5], [0.5, 0.2], [0.8, 0.6]]);
  await page.getByLabel('Customer signature: signed by').fill('Ann Lee');
  await page.getByLabel('Photos of the drop', { exact: true }).setInputFiles({ name: 'drop.png', mimeType: 'image/png', buffer: noisePng(1200, 900, 5) });
  await page.getByLabel('Photos of the drop: caption').fill('Parcel at the gate');
  // A click, not a tap: Chromium may take a tap soon after a stroke over CDP as a second finger
  // and send no click (the questionnaire is then never submitted).
  await page.getByRole('button', { name: 'Submit Delivery checks' }).click();
  // The answers' signature and photo take a moment to prepare; the driver sees when they are kept.
  await page.getByText('Delivery checks: saved.').waitFor();
  await page.getByRole('button', { name: 'Complete the delivery' }).click();
  await sent('the stop questionnaire and the completion');
  await page.getByText('Status: delivered').waitFor();
  await shoot(page, 'stop-done');
  step('stop 1 delivered with its proof');
  await backToRoute();

  // Offline: the app is opened again with the network cut (from its service worker and what it
  // stored), then a partial delivery, a failed one with a photo; the dispatcher reverses the route.
  await context.setOffline(true);
  await page.reload();
  await page.getByRole('heading', { name: 'Your routes' }).waitFor();
  await page.getByText(/^Offline/).waitFor();
  check(await page.evaluate(() => Boolean(navigator.serviceWorker.controller)), 'opened offline from the service worker');
  await routeCard.waitFor();
  check((await routeCard.innerText()).includes('4 stops, 1 done'), `the route as stored: ${await routeCard.innerText()}`);
  await shoot(page, 'offline-start');
  step('opened again offline: the route from the phone\'s store');
  await tapUntil(routeCard, stopButton(1));
  const partial = await stopOf('APP-2');
  await page.getByRole('button', { name: 'I have arrived' }).tap();
  await page.getByLabel('Delivered of TILES (10 ordered)').fill('7');
  await page.getByLabel('Reason if short: TILES').fill('three broken');
  await page.getByLabel('Delivered of GLUE (2 ordered)').fill('0');
  await page.getByRole('button', { name: 'Complete the delivery' }).tap();
  await page.getByText('Status: delivered (waiting to be sent)').waitFor();
  await backToRoute();
  const failed = await stopOf('APP-3');
  await page.getByRole('button', { name: 'I have arrived' }).tap();
  await page.getByLabel('Take photos').setInputFiles({ name: 'porch.png', mimeType: 'image/png', buffer: noisePng(2000, 1500, 3) });
  await page.getByRole('button', { name: 'Save the photos' }).tap();
  await page.getByText('1 photo(s) saved.').waitFor();
  await page.getByLabel('Reason it could not be delivered').fill('Nobody home');
  await page.getByRole('button', { name: 'Mark as not delivered' }).tap();
  await page.getByText('Status: not delivered (waiting to be sent)').waitFor();
  // Five actions, and the positions gathered on the way when the phone had a fix meanwhile.
  const count = page.getByRole('heading', { name: /^\d+ actions waiting to be sent$/ });
  await count.waitFor();
  check(Number((await count.innerText()).split(' ')[0]) >= 5, await count.innerText());
  await shoot(page, 'offline-waiting');
  step(`offline: ${partial} partly delivered, ${failed} failed with a photo; ${await count.innerText()}`);

  const before = (await depot.get(`v2/routes/${routeId}`)).route.stops.map((s) => s.id);
  await depot.post(`v2/routes/${routeId}/reverse`);
  const after = (await depot.get(`v2/routes/${routeId}`)).route.stops.map((s) => s.id);
  check(after.every((id) => !before.includes(id)), 'the reversal gave the stops new ids');
  step(`the dispatcher reversed the route: stops ${before} are now ${after}`);

  await context.setOffline(false);
  await page.getByText('Online').waitFor();
  await sent('the offline actions after the reversal');
  await page.getByText(/The dispatcher changed/).waitFor({ timeout: 30000 });
  await backToRoute().catch(() => {});
  await shoot(page, 'back-online');
  step('back online: every action sent to the stops under their new ids');

  // The last stop, done offline while the van's second phone finishes it: the app says the
  // stop was already finished and records nothing twice.
  await context.setOffline(true);
  await page.getByText(/^Offline/).waitFor();
  await stopOf('APP-4');
  await page.getByRole('button', { name: 'I have arrived' }).tap();
  await page.getByRole('button', { name: 'Complete the delivery' }).tap();
  await page.getByText('Status: delivered (waiting to be sent)').waitFor();
  const other = api(BASE, secondPhone.credential);
  const { route: now } = await other.get(`driver/routes/${routeId}`);
  const last = now.stops.find((s) => s.orders.some((o) => o.order_number === 'APP-4'));
  await other.post(`driver/stops/${last.id}/arrive`, {});
  await other.post(`driver/stops/${last.id}/complete`, {});
  await context.setOffline(false);
  const finished = page.getByRole('status').filter({ hasText: /was already finished: nothing was recorded twice/ }).first();
  await finished.waitFor({ timeout: 40000 });
  await sent('the last stop, finished meanwhile by the other phone');
  await page.getByText('Status: delivered').waitFor();
  await shoot(page, 'already-finished');
  step(`a stop already finished: ${await finished.innerText()}`);
  await backToRoute();
  await page.getByRole('button', { name: 'Finish the route' }).tap();
  await page.getByText('Route finished. Thank you!').waitFor();
  await sent('the end of the route');
  await shoot(page, 'route-finished');
  step('route finished');

  // Tomorrow's route reaches the van, and the dispatcher takes it away again while the driver
  // looks at it.
  const tomorrow = process.env.TOMORROW;
  await depot.post('v2/orders', [{ order_number: 'APP-5', type: 'delivery', delivery_address: '9 High St', delivery_date: tomorrow,
    delivery_lat: 51.51, delivery_lng: -0.11, delivery_duration: 5 }]);
  const next = await depot.post('v2/plans/optimise/orders', { delivery_date: tomorrow, settings: {} });
  for (;;) {
    const { optimisation } = await depot.get(`v2/plans/optimise/${next.optimisation.id}`);
    if (!optimisation.in_progress) break;
    await sleep(400);
  }
  await depot.post(`v2/plans/${next.plan.id}/dispatch`);
  await page.getByText(/^New route for you: /).waitFor({ timeout: 40000 });
  await page.getByRole('button', { name: 'Back to your routes' }).tap().catch(() => {});
  const nextName = (await depot.get(`v2/plans/${next.plan.id}`)).plan.routes[0].name;
  await tapUntil(page.getByRole('button', { name: new RegExp(`^(?!Today)[^:]+: ${nextName}`) }),
    page.getByRole('heading', { name: nextName, exact: true }));
  await depot.del(`v2/plans/${next.plan.id}`);
  const takenAway = page.getByRole('alert').filter({ hasText: 'This route was taken off your van by the dispatcher.' }).first();
  await takenAway.waitFor({ timeout: 40000 });
  check(await page.getByRole('heading', { name: 'Route not available' }).isVisible(), 'the route screen says the route is gone');
  await shoot(page, 'route-taken-away');
  step('tomorrow\'s route dispatched, then taken away: the app says so');

  // The depot revokes the phone: the app says so, and asks for a new code.
  await depot.del(`v2/vehicles/${vehicle.id}/driver-credentials/${credential.id}`);
  await page.reload();
  const withdrawn = page.getByText(/access was withdrawn by the depot/);
  await withdrawn.waitFor({ timeout: 30000 });
  check(await page.getByRole('heading', { name: 'Sign in' }).isVisible(), 'the sign-in screen');
  check(await page.getByRole('button', { name: 'Sign in' }).isVisible(), 'with its button');
  await shoot(page, 'revoked');
  step('credential revoked: the app asks for a new code');
  check(problems.length === 0, problems.join('\n'));
} catch (e) {
  await shoot(page, 'failure').catch(() => {});
  console.error(`problems seen: ${problems.join('\n') || 'none'}`);
  console.error(`page text at the failure:\n${await page.locator('body').innerText().catch(() => '')}`);
  throw e;
} finally {
  await browser.close();
}

console.log(JSON.stringify({ route_id: routeId, plan_id: planId, vehicle_id: vehicle.id, orders: orderIds, screenshots: shoot.taken }));
