import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../test/web/http-test-server.ts';
import { readOnlyApprovalStore } from '../test/support/read-only-approval-store.ts';
import { createAdminRoutes } from './admin-routes.ts';
import { renderBudgets, type BudgetsSnapshot } from './budgets-page.ts';

const TOKEN = 'admin-token-0123456789abcdef0123456789';

const SNAPSHOT: BudgetsSnapshot = {
  deployment: {
    day: { period: '2031-05-20', resetsAt: '2031-05-21T00:00:00.000Z', tokens: 1_234_567, calls: 90, tokenLimit: 2_000_000, costUsd: 1.5 },
    month: { period: '2031-05', resetsAt: '2031-06-01T00:00:00.000Z', tokens: 5_000_000, calls: 400, callLimit: 400 },
  },
  topSenders: [{ id: 'web:b_<script>', tokens: 4000, calls: 10, costMicros: 12_345 }],
  topConversations: [],
};

let withBudgets: TestServer;
let without: TestServer;

beforeAll(async () => {
  const approvals = readOnlyApprovalStore([], {});
  withBudgets = await startTestServer(createAdminRoutes({ approvals, adminToken: TOKEN, budgets: () => Promise.resolve(SNAPSHOT) }));
  without = await startTestServer(createAdminRoutes({ approvals, adminToken: TOKEN }));
});

afterAll(async () => {
  await withBudgets.close();
  await without.close();
});

const auth = { authorization: `Bearer ${TOKEN}` };

describe('the budgets section of /admin', () => {
  it("shows the deployment's spending against its limits and today's top spenders, escaped", () => {
    const html = renderBudgets(SNAPSHOT);
    expect(html).toContain('<td>Today (2031-05-20)</td><td>1,234,567 of 2,000,000 (61.7%)</td><td>90 (no limit)</td><td>$1.5000</td>');
    expect(html).toContain('<td>5,000,000 (no limit)</td><td>400 of 400 (100.0%)</td><td>–</td>');
    expect(html).toContain('<td>4,000</td><td>10</td><td>$0.0123</td>');
    expect(html).toContain('web:b_&#60;script&#62;');
    expect(html).not.toContain('<script>');
    expect(html).toContain('<h2>Top conversations today</h2>\n<table><thead><tr><th>Id</th><th>Tokens</th><th>Model calls</th><th>Cost (est.)</th></tr></thead><tbody><tr><td colspan="4">None.</td></tr>');
    expect(renderBudgets(undefined)).toBe('');
  });

  it('is on the page and at /admin/api/budgets, behind the operator token; absent without budgets', async () => {
    expect(await (await fetch(`${withBudgets.url}/admin`, { headers: auth })).text()).toContain('<h1 id="budgets">Budgets</h1>');
    expect((await fetch(`${withBudgets.url}/admin/api/budgets`)).status).toBe(401);
    const answer = await fetch(`${withBudgets.url}/admin/api/budgets`, { headers: auth });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(await answer.json()).toEqual(SNAPSHOT);
    expect(await (await fetch(`${without.url}/admin`, { headers: auth })).text()).not.toContain('Budgets');
    expect((await fetch(`${without.url}/admin/api/budgets`, { headers: auth })).status).toBe(404);
  });
});
