// A string matched literally inside a regular expression (outside a character class; valid under
// the `u` flag too, so `-` is left as it is).
export const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
