import { describe, expect, test } from 'vitest';
import { httpsFormOf, splitCredentials, withUrlCredentials } from '../../client/target-url.js';

describe('credentials in a target URL', () => {
  test('are taken out of the URL, decoded', () => {
    expect(splitCredentials('https://admin:p%40ss%3Aword@10.0.0.5:8443/')).toEqual({
      url: 'https://10.0.0.5:8443',
      user: 'admin',
      password: 'p@ss:word',
    });
  });

  test('a URL without them is left as it is', () => {
    expect(splitCredentials('https://bmc.lab:443')).toEqual({ url: 'https://bmc.lab:443' });
    expect(splitCredentials('not a url')).toEqual({ url: 'not a url' });
  });

  test('replace --user and --password; a user alone keeps the password flag', () => {
    const flags = { target: 'https://ops:s3cret@bmc', user: 'root', password: '0penBmc', namespace: 'x' };
    expect(withUrlCredentials(flags)).toEqual({ target: 'https://bmc', user: 'ops', password: 's3cret', namespace: 'x' });
    expect(withUrlCredentials({ ...flags, target: 'https://ops@bmc' })).toMatchObject({
      target: 'https://bmc',
      user: 'ops',
      password: '0penBmc',
    });
  });
});

describe('the https URL a target most likely means', () => {
  test.each([
    ['127.0.0.1:18600', 'https://127.0.0.1:18600'],
    ['localhost:18600', 'https://localhost:18600'],
    ['bmc.lab', 'https://bmc.lab'],
    ['[::1]:443/', 'https://[::1]:443'],
    ['http://bmc.lab:8080/prefix', 'https://bmc.lab:8080/prefix'],
    ['htps://bmc.lab', 'https://bmc.lab'],
    ['ftp://bmc.lab', 'https://bmc.lab'],
    ['https:/bmc.lab', 'https://bmc.lab'],
    ['HTTP:bmc.lab', 'https://bmc.lab'],
  ])('%s → %s', (given, meant) => {
    expect(httpsFormOf(given)).toBe(meant);
  });
});
