/**
 * The example app with some channels opened to anyone: a temporary copy (see
 * {@link copyExampleApp}) whose `switchboard.yaml` sets `senders: open` on the named channels. The
 * example itself keeps each channel's default (pairing on SMS, email and WhatsApp), so tests that
 * let strangers write to it say so here.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { copyExampleApp } from './example-app-copy.ts';

/** Copies the example app into a new temporary folder with `senders: open` on `channels`; returns the folder. The caller removes it. */
export function openExampleApp(prefix: string, channels: readonly ('email' | 'sms' | 'whatsapp' | 'slack')[]): string {
  const dir = copyExampleApp(prefix);
  const file = join(dir, 'switchboard.yaml');
  const document = parseDocument(readFileSync(file, 'utf8'));
  for (const channel of channels) document.setIn(['channels', channel, 'senders'], 'open');
  writeFileSync(file, document.toString());
  return dir;
}
