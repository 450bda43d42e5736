package io.phoenixtxn.tm.ha;

import io.phoenixtxn.tm.net.TmEndpoint;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

/** The primary's advertisement, {@code host:port#epoch} in UTF-8 (an IPv6 host in brackets). */
final class EndpointCodec {
    private EndpointCodec() {
    }

    static byte[] encode(TmEndpoint endpoint) {
        String host = endpoint.host().contains(":") ? "[" + endpoint.host() + "]" : endpoint.host();
        return (host + ":" + endpoint.port() + "#" + endpoint.epoch()).getBytes(StandardCharsets.UTF_8);
    }

    /** The endpoint, or empty if the data is not one (so a foreign node is ignored, not trusted). */
    static Optional<TmEndpoint> decode(byte[] data) {
        if (data == null) {
            return Optional.empty();
        }
        String text = new String(data, StandardCharsets.UTF_8).trim();
        int hash = text.lastIndexOf('#');
        int colon = hash < 0 ? -1 : text.lastIndexOf(':', hash);
        if (colon <= 0) {
            return Optional.empty();
        }
        String host = text.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        try {
            return Optional.of(new TmEndpoint(host, Integer.parseInt(text.substring(colon + 1, hash)),
                    Long.parseLong(text.substring(hash + 1))));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
