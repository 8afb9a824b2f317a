import { describe, expect, test } from 'vitest';
import { appendFrame, EvidenceLog, exchangeText, FRAMES_PER_SUBSCRIPTION, type Exchange } from '../../client/evidence.js';
import { replayLine, replayScript, timelineText } from '../../client/timeline.js';

const BASE = 'https://bmc.example:8443';

function exchange(over: Partial<Exchange>): Exchange {
  return {
    at: '2026-11-25T06:00:00.000Z',
    method: 'GET',
    url: '/xyz/mgmt_project/inventory/system',
    requestHeaders: {},
    durationMs: 1,
    status: 200,
    ...over,
  };
}

describe('evidence of a subscription', () => {
  test('messages received after the handshake was recorded are read with it, redacted, up to the cap', () => {
    const log = new EvidenceLog({ secrets: ['hunter22'] });
    const live = log.recordLive(exchange({ url: '/subscribe', status: 101, requestBody: '{"paths":["/a"]}' }));
    const mark = log.mark();
    appendFrame(live, '{"event":"PropertiesChanged","path":"/a","properties":{"Secret":"hunter22"}}', new Date('2026-11-25T06:00:01.000Z'));
    log.record(exchange({ method: 'PUT', url: '/a/attr/X', at: '2026-11-25T06:00:00.500Z' }));
    const [sub] = log.entries();
    expect(sub!.frames).toHaveLength(1);
    expect(sub!.frames![0]!.text).not.toContain('hunter22');
    expect(sub!.frames![0]!.at).toBe('2026-11-25T06:00:01.000Z');
    // Read again later: what arrived since is there too (the entry stays live).
    appendFrame(live, '{"event":"PropertiesChanged","path":"/a","properties":{"X":2}}');
    expect(log.entries()[0]!.frames).toHaveLength(2);
    expect(log.since(mark)).toHaveLength(1);
    for (let i = 0; i < FRAMES_PER_SUBSCRIPTION + 5; i++) appendFrame(live, `{"n":${i}}`);
    const capped = log.entries()[0]!;
    expect(capped.frames).toHaveLength(FRAMES_PER_SUBSCRIPTION);
    expect(capped.framesDropped).toBe(7);
    expect(exchangeText(capped).response).toMatch(/messages received: 107 \(the first 100 shown\)/);
  });

  test('the timeline interleaves requests and messages by time, relative to the first', () => {
    const sub = exchange({ url: '/subscribe', status: 101, statusLine: '101 Switching Protocols', requestBody: '{"paths":["/a"]}' });
    sub.frames = [{ at: '2026-11-25T06:00:00.250Z', text: '{"event":"PropertiesChanged","path":"/a"}' }];
    sub.closed = { at: '2026-11-25T06:00:00.900Z', code: 1000, reason: '' };
    const put = exchange({
      method: 'PUT',
      url: '/a/attr/X',
      requestBody: '{"data":1}',
      at: '2026-11-25T06:00:00.200Z',
      statusLine: '200 OK',
    });
    const lines = timelineText([sub, put]).split('\n');
    expect(lines).toEqual([
      '+     0 ms  subscription 1 opened: filter {"paths":["/a"]} → 101 Switching Protocols',
      '+   200 ms  PUT /a/attr/X {"data":1} → 200 OK',
      '+   250 ms    subscription 1 received {"event":"PropertiesChanged","path":"/a"}',
      '+   900 ms    subscription 1 closed (code 1000)',
    ]);
  });
});

describe('replay lines', () => {
  test('a request with a session refers to $COOKIE and names the host', () => {
    const line = replayLine(
      exchange({
        method: 'PUT',
        url: '/a/attr/X',
        requestHeaders: { cookie: 'sid=<redacted>', 'content-type': 'application/json' },
        requestBody: '{"data":1}',
      }),
      BASE,
    );
    expect(line).toBe(
      `curl -k -sS -i --path-as-is -g -X PUT -b "$COOKIE" -H 'Accept: application/json' -H 'Content-Type: application/json' --data-raw '{"data":1}' https://bmc.example:8443/a/attr/X`,
    );
  });

  test('a login sends $PASSWORD, never the masked text', () => {
    const line = replayLine(
      exchange({
        method: 'POST',
        url: '/login',
        requestHeaders: { 'content-type': 'application/json' },
        requestBody: '{"data":["root","***"]}',
      }),
      BASE,
    );
    expect(line).toContain('--data-raw "{\\"data\\": [\\"root\\", \\"$PASSWORD\\"]}"');
    expect(line).not.toContain('***');
    expect(line).not.toContain('-b "$COOKIE"');
  });

  test('a subscription is a websocat line sending its filter, left running beside the writes', () => {
    const line = replayLine(
      exchange({
        url: '/subscribe',
        status: 101,
        requestHeaders: { cookie: 'sid=<redacted>', 'sec-websocket-protocol': '<redacted>' },
        requestBody: '{"paths":["/a"]}',
      }),
      BASE,
    );
    expect(line).toBe(
      `(printf '%s\\n' '{"paths":["/a"]}'; sleep 30) | websocat -k -H "Cookie: $COOKIE" --protocol "$XSRF" wss://bmc.example:8443/subscribe &`,
    );
  });

  test('a body the evidence cut is sent from a file, not inline', () => {
    const line = replayLine(
      exchange({ method: 'POST', url: '/upload/image', requestBody: '<2048 bytes of binary data, starting 1f8b>' }),
      BASE,
    );
    expect(line).toMatch(/--data-binary @request-body\.bin$/);
    expect(replayScript([], BASE)).toBe('');
  });
});
