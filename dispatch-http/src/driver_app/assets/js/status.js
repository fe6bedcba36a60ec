// Where a route and a stop stand, as the service last showed them plus what waits in the
// outbox: the driver sees what they did at once, sent or not.

import { state, stopKey } from './state.js';

function waiting(routeId, kind, key) {
  return state.outbox.some((a) => a.state !== 'failed' && a.route_id === routeId && a.kind === kind &&
    (key === undefined || a.stop_key === key));
}

export function routeStatus(r) {
  const started = Boolean(r.started_ts) || waiting(r.id, 'start');
  const completed = Boolean(r.completed_ts) || waiting(r.id, 'finish');
  const checkedIn = (r.driver_questionnaire_submissions || [])
    .some((s) => s.driver_questionnaire?.type === 'ROUTE_VEHICLE_CHECKIN') || waiting(r.id, 'checkin');
  const text = completed ? 'finished' : started ? 'on the road' : 'not started';
  return { started, completed, checkedIn, text };
}

export function stopStatus(s) {
  const key = stopKey(s);
  const reason = s.failed_reason?.reason;
  if (reason !== undefined && reason !== null) return { done: true, failed: true, arrived: true, text: `not delivered: ${reason}` };
  if (s.actual_completed_ts) return { done: true, arrived: true, text: 'delivered' };
  if (waiting(s.route_id, 'complete', key)) return { done: true, arrived: true, text: 'delivered (waiting to be sent)' };
  if (waiting(s.route_id, 'fail', key)) return { done: true, failed: true, arrived: true, text: 'not delivered (waiting to be sent)' };
  if (s.actual_arrival_time || waiting(s.route_id, 'arrive', key)) return { done: false, arrived: true, text: 'arrived' };
  return { done: false, arrived: false, text: 'to do' };
}
