// The undici modules the backend client imports on their own (context.ts): typed as the package's index types them.
declare module 'undici/lib/dispatcher/pool.js' {
  const Pool: typeof import('undici').Pool;
  export default Pool;
}
declare module 'undici/lib/dispatcher/agent.js' {
  const Agent: typeof import('undici').Agent;
  export default Agent;
}
// The connector (context.ts wraps the sockets it makes, interim-answers.ts) and the parser's symbol on a socket.
declare module 'undici/lib/core/connect.js' {
  const buildConnector: typeof import('undici').buildConnector;
  export default buildConnector;
}
declare module 'undici/lib/core/symbols.js' {
  const symbols: { readonly kParser: symbol };
  export default symbols;
}
