// HTTPS_PROXY / NO_PROXY with Go's rules (golang.org/x/net/http/httpproxy), as kubectl applies them.
import { describe, expect, it } from "vitest";
import { proxyFromEnvironment, useProxy } from "../../src/cluster/proxy.js";

describe("useProxy (Go's httpproxy rules)", () => {
  it.each([
    ["localhost is never proxied", "localhost", "443", "", false],
    ["loopback IPv4 is never proxied", "127.0.0.1", "6443", "", false],
    ["any 127/8 address is loopback", "127.1.2.3", "443", "", false],
    ["loopback IPv6 is never proxied", "::1", "443", "", false],
    ["other hosts are", "api.example.com", "443", "", true],
    ["* disables the proxy", "api.example.com", "443", "*", false],
    ["a name matches itself", "example.com", "443", "example.com", false],
    ["a name matches its subdomains", "api.example.com", "443", "example.com", false],
    ["but not a longer name", "notexample.com", "443", "example.com", true],
    ["a leading dot: subdomains only", "example.com", "443", ".example.com", true],
    ["a leading dot matches subdomains", "a.example.com", "443", ".example.com", false],
    ["*.x is .x", "a.example.com", "443", "*.example.com", false],
    ["a port must match", "example.com", "443", "example.com:6443", true],
    ["a matching port", "example.com", "6443", "example.com:6443", false],
    ["an IP", "10.1.2.3", "443", "10.1.2.3", false],
    ["another IP", "10.1.2.4", "443", "10.1.2.3", true],
    ["a CIDR", "10.1.2.4", "443", "10.0.0.0/8", false],
    ["outside the CIDR", "11.1.2.4", "443", "10.0.0.0/8", true],
    ["a CIDR does not match names", "kubernetes", "443", "10.0.0.0/8", true],
    ["IPv6 CIDR", "fd00::5", "443", "fd00::/8", false],
    ["case and spaces", "API.Example.com".toLowerCase(), "443", " Example.COM , other", false],
  ])("%s", (_what, host, port, noProxy, expected) => {
    expect(useProxy(host, port, noProxy)).toBe(expected);
  });

  it("HTTPS_PROXY for https servers, HTTP_PROXY for http ones; a bare host:port is http://", () => {
    const env = { HTTPS_PROXY: "proxy.corp:3128", HTTP_PROXY: "http://plain:80" };
    expect(proxyFromEnvironment(new URL("https://api.example.com:6443"), env)?.href).toBe("http://proxy.corp:3128/");
    expect(proxyFromEnvironment(new URL("http://api.example.com:8080"), env)?.href).toBe("http://plain/");
    expect(proxyFromEnvironment(new URL("https://127.0.0.1:6443"), env)).toBeUndefined();
    expect(proxyFromEnvironment(new URL("https://api.example.com"), { https_proxy: "socks5://s:1080" })?.protocol).toBe("socks5:");
  });
});
