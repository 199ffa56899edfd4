// Where the specs' server listens: 3100, or ACE_E2E_PORT so a second checkout can run its specs beside another's.
export const E2E_PORT = Number(process.env.ACE_E2E_PORT ?? 3100);
export const BASE_URL = `http://127.0.0.1:${E2E_PORT}`;
