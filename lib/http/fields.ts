// RFC 9110 §5.1: a field name is a token. Shared by everything that writes header names it did not choose
// (backend forwarding, mock answers from contract-declared headers).
export const TOKEN = /^[!#$%&'*+\-.^_`|~\dA-Za-z]+$/;
