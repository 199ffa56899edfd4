"use client";
// The reader's time zone once hydrated, UTC in the server's HTML: the charts' labels then match on
// both sides, and switch to the reader's clock right after.
import { useSyncExternalStore } from "react";
import { SERVER_TIME_ZONE, viewerTimeZone } from "./time-labels";

const subscribe = () => () => {};

export function useTimeZone(): string {
  return useSyncExternalStore(subscribe, viewerTimeZone, () => SERVER_TIME_ZONE);
}
