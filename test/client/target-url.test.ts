import { describe, expect, test } from 'vitest';
import { splitCredentials, withUrlCredentials } from '../../client/target-url.js';

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
