/**
 * Text from outside (ids, labels, paths, evidence) made safe for any client: Emacs's JSON parser
 * rejects a NUL, and a newline breaks a one-line message.
 */

/** One line of text: every control character (C0, DEL, C1) becomes a space. */
export function plain(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what this removes
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
}

/** Text of several lines: newlines kept (CR LF as LF), tabs as four spaces, every other control character a space. */
export function plainText(text: string): string {
  return (
    text
      .replace(/\r\n/g, '\n')
      .replace(/\t/g, '    ')
      // eslint-disable-next-line no-control-regex -- control characters are what this removes
      .replace(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g, ' ')
  );
}
