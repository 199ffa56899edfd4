"use client";
// Single-key shortcuts (j, k, a …) for a page. They stay out of the way while someone types, holds
// a modifier, or works in an open dialog or menu, where the same keys mean something else.
import { useEffect, useRef } from "react";
import { useHydrated } from "./use-hydrated";

const TEXT_INPUTS = new Set(["text", "search", "email", "url", "tel", "password", "number", "date", "time", "datetime-local"]);

function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  return target instanceof HTMLInputElement && TEXT_INPUTS.has(target.type);
}

function overlayOpen(): boolean {
  return document.querySelector('[role="dialog"], [role="alertdialog"], [role="menu"], [role="listbox"]') !== null;
}

/** Returns whether the keys are live: false until the page has hydrated and the listener is on. */
export function useShortcuts(handlers: Record<string, (() => void) | undefined>, enabled = true): boolean {
  // The listener goes on in the effect below, right after hydration.
  const hydrated = useHydrated();
  // The latest handlers without re-subscribing on every render.
  const current = useRef(handlers);
  useEffect(() => {
    current.current = handlers;
  });

  useEffect(() => {
    if (!enabled) return;
    function onKeyDown(event: KeyboardEvent) {
      if (event.metaKey || event.ctrlKey || event.altKey || event.defaultPrevented || event.repeat) return;
      if (isTyping(event.target) || overlayOpen()) return;
      const handler = current.current[event.key];
      if (!handler) return;
      event.preventDefault();
      handler();
    }
    window.addEventListener("keydown", onKeyDown);
    return () => {
      window.removeEventListener("keydown", onKeyDown);
    };
  }, [enabled]);
  return hydrated && enabled;
}
