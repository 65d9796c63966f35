/** People shared by the proactive message tests (not a test file itself). */
import type { Person } from '../app/app-types.ts';

const none = { web: [], email: [], sms: [], slack: [], whatsapp: [] };

/** Grace: email, SMS (two numbers) and a web conversation. Ada: email only. Lin: no address. */
export const PEOPLE: readonly Person[] = [
  {
    id: 'grace',
    name: 'Grace Hopper',
    addresses: { ...none, email: ['grace@example.com'], sms: ['+15550100', '+15550199'], web: ['web:grace-chat'] },
    roles: [],
  },
  { id: 'ada', name: 'Ada Lovelace', addresses: { ...none, email: ['ada@example.com'] }, roles: [] },
  { id: 'lin', name: 'Lin Chen', addresses: none, roles: [] },
];
