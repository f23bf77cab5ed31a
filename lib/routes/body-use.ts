// Which steps read the message body: a route that forwards the client's body to a backend untouched can
// stream it instead of reading it first. Decided once per route at startup.
import type { Expression, StepDefinition } from './steps.js';

/** `${body}`, `${body.x}`, `${bodyAs(...)}`: a simple template that reads the body. */
const READS_BODY = /\$\{\s*body/;

/** True when no step before the last reads or replaces the body (unknown code, `process` or a function expression, counts as reading it). */
export function bodyUntouchedBefore(steps: readonly StepDefinition[], last: number): boolean {
  for (let i = 0; i < last; i++) {
    const step = steps[i]!;
    switch (step.kind) {
      case 'setHeader':
      case 'setProperty':
        if (readsBody(step.expression)) return false;
        break;
      case 'removeHeader':
        break;
      case 'log':
        if (READS_BODY.test(step.message)) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

function readsBody(expression: Expression): boolean {
  if (typeof expression === 'function') return true;
  return 'simple' in expression && READS_BODY.test(String(expression.simple));
}
