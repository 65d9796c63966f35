/**
 * The targets `renderForChannel` renders for, with their limits, and what it returns for each.
 */

import type { Attachment } from './artifacts.ts';
import type { Numbering } from './chunk.ts';

/** SMS: plain text, chunks limited in segments. */
export interface PlainTarget {
  readonly format: 'plain';
  /** Largest chunk (one SMS, maybe concatenated), in segments, numbering included. Default 10. */
  readonly maxSegments?: number;
  /** GSM-7 friendly punctuation (see `normaliseGsm`). Default `true`. */
  readonly gsm?: boolean;
  /** Default `prefix`. */
  readonly numbering?: Numbering;
  /** Return artifacts as attachments (MMS) instead of link lines. Default `false`. */
  readonly attachments?: boolean;
}

/** WhatsApp text. */
export interface WhatsAppTarget {
  readonly format: 'whatsapp';
  /** Largest chunk in characters (UTF-16 code units), numbering included. Default 4096. */
  readonly maxChars?: number;
  /** Default `prefix`. */
  readonly numbering?: Numbering;
  /** Return artifacts as attachments (media messages) instead of link lines. Default `true`. */
  readonly attachments?: boolean;
}

/** Slack mrkdwn, e.g. for section blocks. */
export interface SlackTarget {
  readonly format: 'slack';
  /** Largest chunk in characters (UTF-16 code units), numbering included. Default 3000 (a section block's text). */
  readonly maxChars?: number;
  /** Default `prefix`. */
  readonly numbering?: Numbering;
  /** Return artifacts as attachments (file uploads) instead of link lines. Default `false`. */
  readonly attachments?: boolean;
}

/** E-mail: an HTML fragment and its plain-text alternative; artifacts always as attachments. */
export interface EmailTarget {
  readonly format: 'email';
}

/** The web chat page: safe HTML, links opening in a new tab. */
export interface WebTarget {
  readonly format: 'web';
  /** Return artifacts as attachments instead of link lines. Default `false`. */
  readonly attachments?: boolean;
}

/** A channel's format and limits. */
export type RenderTarget = PlainTarget | WhatsAppTarget | SlackTarget | EmailTarget | WebTarget;

/** Rendering of a chunked text target: send `chunks` in order, then the attachments. */
export interface ChunkedRendering {
  readonly format: 'plain' | 'whatsapp' | 'slack';
  /** Each within the target's limit; empty when nothing is to be shown. */
  readonly chunks: string[];
  readonly attachments: Attachment[];
}

/** Rendering for e-mail. */
export interface EmailRendering {
  readonly format: 'email';
  /** The first heading (or approval title), at most 78 characters; the channel picks one when absent. */
  readonly subject?: string;
  readonly html: string;
  readonly text: string;
  readonly attachments: Attachment[];
}

/** Rendering for the web chat page. */
export interface WebRendering {
  readonly format: 'web';
  readonly html: string;
  readonly attachments: Attachment[];
}

/** The rendering type of a target type. */
export type RenderingFor<T extends RenderTarget> = T extends EmailTarget ? EmailRendering : T extends WebTarget ? WebRendering : ChunkedRendering;
