package dev.zaelimiter.autoconfigure;

import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The Redis that Spring Boot's {@code spring.data.redis.*} properties name, as a URI for the store: {@code url} when
 * set; else {@code cluster.nodes} ({@code redis-cluster://}) or {@code sentinel.master} and {@code sentinel.nodes}
 * ({@code redis-sentinel://}) when set; else {@code host} and {@code port}; with {@code username},
 * {@code password}, {@code database} and {@code ssl.enabled}, and Spring Boot's defaults (localhost:6379, database 0).
 */
final class SpringDataRedisUri {

    private static final String PREFIX = "spring.data.redis.";

    private SpringDataRedisUri() {
    }

    static String of(Binder binder) {
        String url = binder.bind(PREFIX + "url", String.class).orElse(null);
        if (url != null) {
            return url;
        }
        String host = binder.bind(PREFIX + "host", String.class).orElse("localhost") + ":"
                + binder.bind(PREFIX + "port", Integer.class).orElse(6379);
        String username = binder.bind(PREFIX + "username", String.class).orElse(null);
        String password = binder.bind(PREFIX + "password", String.class).orElse(null);
        int database = binder.bind(PREFIX + "database", Integer.class).orElse(0);
        boolean ssl = binder.bind(PREFIX + "ssl.enabled", Boolean.class).orElse(false);
        String scheme = ssl ? "rediss://" : "redis://";
        String master = "";
        List<String> cluster = binder.bind(PREFIX + "cluster.nodes", Bindable.listOf(String.class)).orElse(List.of());
        List<String> sentinels = binder.bind(PREFIX + "sentinel.nodes", Bindable.listOf(String.class))
                .orElse(List.of());
        if (!cluster.isEmpty()) {
            scheme = "redis-cluster://";
            host = String.join(",", cluster);
        } else if (binder.bind(PREFIX + "sentinel.master", String.class).isBound() && !sentinels.isEmpty()) {
            scheme = "redis-sentinel://";
            host = String.join(",", sentinels);
            master = "#" + binder.bind(PREFIX + "sentinel.master", String.class).get();
        }
        StringBuilder uri = new StringBuilder(scheme);
        if (password != null) {
            if (username != null) {
                uri.append(encode(username));
            }
            uri.append(':').append(encode(password)).append('@');
        }
        uri.append(host);
        return (scheme.equals("redis-cluster://") ? uri : uri.append('/').append(database)).append(master)
                .toString();
    }

    /** {@code uri} for a log line: any password replaced by {@code ***}. */
    static String withoutPassword(String uri) {
        return uri.replaceFirst("://([^:@/]*):[^@/]*@", "://$1:***@");
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
