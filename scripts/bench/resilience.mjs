// Bench setup for "forward with retries and a breaker, untriggered": a backend that counts the requests it
// answers, and the check that the measured facade never sent one twice nor opened its breaker.
import { BARE_SERVER, bareEnv } from './backend.mjs';
import { start } from './start.mjs';

const COUNT_PATH = '/bench/requests';
/** Requests sent one after the other through the facade, each of which must reach the backend once. */
const SEQUENTIAL = 50;

/** The scenario's backend (bare-server.mjs answering `expect`), counting what it answers. */
export const startCountingBackend = (scenario) => start(BARE_SERVER, [], { ...bareEnv(scenario.expect), BARE_COUNT_PATH: COUNT_PATH });

async function answered(backendPort) {
  const res = await fetch(`http://127.0.0.1:${backendPort}${COUNT_PATH}`);
  return Number(await res.text());
}

/** The sum of a metric's samples in the facade's Prometheus text; undefined when the family has none. */
function metric(text, name, labelFilter = '') {
  const samples = text.split('\n').filter((line) => line.startsWith(`${name}{`) && line.includes(labelFilter));
  return samples.length === 0 ? undefined : samples.reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/**
 * After the loads: the facade's own counters say no retry was made and the breaker is closed (this build must
 * expose them; an --against build may predate them), and the backend sees exactly one request for each of
 * SEQUENTIAL requests sent through the facade.
 */
export async function verifyUntriggered(port, { helper, name, request }) {
  const who = `forward-resilience (${name})`;
  const metrics = await (await fetch(`http://127.0.0.1:${port}/observe/metrics`)).text();
  const retries = metric(metrics, 'svc_backend_retries_total');
  const closed = metric(metrics, 'svc_circuit_breaker_state', 'state="closed"');
  if (name === 'facade' && (retries === undefined || closed === undefined)) throw new Error(`${who}: /observe/metrics has no svc_backend_retries_total or svc_circuit_breaker_state sample`);
  if (retries !== undefined && retries !== 0) throw new Error(`${who}: the facade retried ${retries} request(s) during the loads; the backend never failed`);
  if (closed !== undefined && closed !== 1) throw new Error(`${who}: the circuit breaker is not closed`);
  const before = await answered(helper.port);
  for (let i = 0; i < SEQUENTIAL; i++) {
    const res = await fetch(`http://127.0.0.1:${port}${request.path}`, { method: request.method, headers: request.headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${who}: request ${i + 1} of ${SEQUENTIAL} answered ${res.status}`);
  }
  const sent = (await answered(helper.port)) - before;
  if (sent !== SEQUENTIAL) throw new Error(`${who}: ${SEQUENTIAL} requests through the facade reached the backend ${sent} times`);
}
