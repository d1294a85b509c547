// The Link header's rel="next" URL, followed as given (never built from page numbers).

export function nextLink(link: string | null): string | undefined {
  if (!link) return undefined;
  for (const part of link.split(',')) {
    const m = part.match(/<([^>]+)>\s*;(.*)$/);
    if (m && /\brel\s*=\s*"?([^";]*\s)?next(\s[^";]*)?"?/.test(m[2]!)) return m[1]!.trim();
  }
  return undefined;
}
