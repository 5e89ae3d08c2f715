import { isLocalBackendUrl, isLoopbackBackendUrl } from '../src/locality';

describe('which backends background preparation may call', () => {
  test.each([
    'http://127.0.0.1:11434/v1',
    'http://localhost:1234/v1',
    'http://[::1]:8080/v1',
    'http://10.0.0.5/v1',
    'http://172.20.1.1/v1',
    'http://192.168.1.10:11434/v1',
    'http://ollama:11434/v1',
    'http://gpu-box.local/v1',
  ])('%s is local', (url) => {
    expect(isLocalBackendUrl(url)).toBe(true);
  });

  test.each(['https://api.openai.com/v1', 'http://172.32.0.1/v1', 'http://8.8.8.8/v1', 'https://models.example.com/v1', 'not a url'])('%s is not', (url) => {
    expect(isLocalBackendUrl(url)).toBe(false);
  });
});

describe('which backends may read text that must not leave the machine (external skills)', () => {
  test.each(['http://127.0.0.1:11434/v1', 'http://127.9.9.9/v1', 'http://localhost:1234/v1', 'http://api.localhost/v1', 'http://[::1]:8080/v1'])('%s is loopback', (url) => {
    expect(isLoopbackBackendUrl(url)).toBe(true);
  });

  // Local network and bare names are local enough for preparation, but not this machine's loopback.
  test.each(['http://10.0.0.5/v1', 'http://192.168.1.10:11434/v1', 'http://ollama:11434/v1', 'http://gpu-box.local/v1', 'https://api.openai.com/v1', 'not a url'])('%s is not', (url) => {
    expect(isLoopbackBackendUrl(url)).toBe(false);
  });
});
