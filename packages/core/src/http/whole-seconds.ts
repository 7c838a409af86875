/** Truncates to whole seconds: stored and displayed timestamps carry no fraction. */
export function wholeSeconds(date: Date): Date {
  return new Date(Math.floor(date.getTime() / 1000) * 1000);
}
