// The time a request is served at, read once per request (cache() lasts one server request): the
// pages resolve their chart ranges with it, and hand it to the browser so hydration resolves the same.
import "server-only";
import { cache } from "react";

export const requestTime = cache(() => Date.now());
