// A call cut short by its client: it closed its connection mid-request (the forward then aborts the backend
// call, call.ts), or its body could not be read (SVC_BODY_ABORTED is made for nothing else); or refused for
// what the client sent, a 4xx the facade made itself (a body over maxBodySize, a GET with a body to forward).
// The backend did not fail, so the circuit breaker and the load balancer's outlier ejection count such a call neither as a
// success nor as a failure (Resilience4j ignores a cancelled call; Envoy counts only upstream errors): else
// the requests a load test leaves in flight at its end, or one client dropping its connections on purpose,
// would open a breaker in front of a healthy backend, and so would one client sending oversized bodies.
import { SvcError } from '../util/errors.js';

/**
 * Whether the error is the client's doing (its leaving, its unreadable or refused request: SVC_BODY_ABORTED is
 * a 400 like the others), not a failure of what was called. A backend's own 4xx is an answer, never an error;
 * the facade's errors about a backend are 5xx (502, 504).
 */
export function cutByClient(err: unknown): boolean {
  return err instanceof SvcError && err.status < 500;
}
