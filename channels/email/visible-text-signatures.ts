/**
 * Signatures below a reply: the `-- ` delimiter (RFC 3676) and the one line mobile and webmail
 * clients append ("Sent from my iPhone", "Get Outlook for iOS"), in several languages.
 */
import { MAX_MARKER_LINE } from './visible-text-line-marks.ts';

/** One line each that mobile and webmail clients append ("Sent from my iPhone", "Get Outlook for iOS"). */
const DEVICE_SIGNATURES: readonly RegExp[] = [
  /^Sent from my \S[^,;:!?]{0,40}$/i,
  /^Sent (from|with) (Outlook|Mail|Yahoo Mail|AOL|Proton ?Mail|Gmail)\b[^,;:!?]{0,40}$/i,
  /^Get Outlook for (iOS|Android)(\s*<[^<>\s]*>)?$/i,
  /^Von meinem \S[^,;:!?]{0,40} gesendet\.?$/i,
  /^Gesendet von meinem \S[^,;:!?]{0,40}$/i,
  /^Outlook für (iOS|Android) beziehen(\s*<[^<>\s]*>)?$/i,
  /^Envoyé (de|depuis) mon \S[^,;:!?]{0,40}$/i,
  /^(Obtenir|Télécharger) Outlook pour (iOS|Android)(\s*<[^<>\s]*>)?$/i,
  /^Enviado desde mi \S[^,;:!?]{0,40}$/i,
  /^Obtener Outlook para (iOS|Android)(\s*<[^<>\s]*>)?$/i,
  /^Skickat från min \S[^,;:!?]{0,40}$/i,
  /^Hämta Outlook för (iOS|Android)(\s*<[^<>\s]*>)?$/i,
  /^(Verzonden|Verstuurd) (vanaf|met) mijn \S[^,;:!?]{0,40}$/i,
  /^Inviato da(l mio)? (iPhone|iPad|Android|Samsung|Outlook)[^,;:!?]{0,40}$/i,
];

/** `-- ` (RFC 3676) or `--`: everything below is the signature. */
export function isSignatureDelimiter(line: string): boolean {
  return line.trimEnd() === '--';
}

/** A whole line such as "Sent from my iPhone" (surrounding white space ignored); a sentence that merely starts so is not. */
export function isDeviceSignature(line: string): boolean {
  const trimmed = line.trim();
  return trimmed.length <= MAX_MARKER_LINE && DEVICE_SIGNATURES.some((pattern) => pattern.test(trimmed));
}
