// Text as a plain-text reader gets it: a brief's rendering (what the hooks put in front of an
// agent, what `doco brief` prints to a terminal) and the hooks' standing orders. Records hold what
// their sources wrote: a carriage return, a Unicode line or paragraph separator, or an escape
// sequence in an issue's text would start a line the brief did not indent (a forged "Must obey"
// at column 0) or rewrite what a terminal shows (found by a hostile-input review).

/** Line breaks other than \n: CR and CRLF, NEL, VT, FF and the Unicode line and paragraph separators. */
const OTHER_LINE_BREAKS = /\r\n?|[\v\f\u0085\u2028\u2029]/g;

/** Control characters but tab and newline: C0 (ESC starts ANSI and OSC sequences), DEL and C1. */
const CONTROLS = /[\u0000-\u0008\u000e-\u001f\u007f-\u009f]/g;

/** Every line break as \n, and no control character but tab and newline. */
export function plainText(text: string): string {
  return text.replace(OTHER_LINE_BREAKS, '\n').replace(CONTROLS, '');
}
