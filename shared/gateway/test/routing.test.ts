import { defaultConfig } from '@sous/config';
import { chooseUpstream, GatewayError, routeFor, upstreamUrl } from '@sous/gateway';

function config() {
  const cfg = defaultConfig();
  cfg.backend.base_url = 'http://default.example/v1';
  cfg.backend.api_key_env = '';
  cfg.gateway.routes = { 'gpt-': 'http://openai.example/v1', 'gpt-4.1': 'http://special.example/v1' };
  cfg.backends = { alt: { base_url: 'http://alt.example/v1', model: 'm', api_key_env: 'ALT_KEY' } };
  return cfg;
}

test('the longest matching model prefix routes; no match goes to backend.*', () => {
  expect(routeFor(config().gateway.routes, 'gpt-4.1-mini')).toBe('gpt-4.1');
  expect(chooseUpstream(config(), 'gpt-4o', undefined, {})).toEqual({ name: 'route:gpt-', baseUrl: 'http://openai.example/v1' });
  expect(chooseUpstream(config(), 'llama3', undefined, {})).toEqual({ name: 'backend', baseUrl: 'http://default.example/v1' });
});

test('X-Sous-Backend wins over the model prefix and takes its key from the variable it names', () => {
  expect(chooseUpstream(config(), 'gpt-4o', 'alt', { ALT_KEY: 'k' })).toEqual({ name: 'profile:alt', baseUrl: 'http://alt.example/v1', apiKey: 'k' });
  expect(() => chooseUpstream(config(), 'gpt-4o', 'alt', {})).toThrow(/ALT_KEY, which is not set/);
  const unknown = (() => {
    try {
      chooseUpstream(config(), 'x', 'nope', {});
    } catch (err) {
      return err as GatewayError;
    }
    return undefined;
  })();
  expect(unknown?.toBody().error).toMatchObject({ code: 'invalid_request', where: 'header.x-sous-backend', message: expect.stringMatching(/configured: alt/) });
  expect(unknown?.status).toBe(400);
});

test('upstream URLs keep the base path', () => {
  expect(upstreamUrl('http://h:1/v1/', '/chat/completions').href).toBe('http://h:1/v1/chat/completions');
});
