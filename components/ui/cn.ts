import { clsx, type ClassValue } from "clsx";

/** Joins class names; callers pass only classes that do not fight the base ones. */
export function cn(...values: ClassValue[]): string {
  return clsx(values);
}
