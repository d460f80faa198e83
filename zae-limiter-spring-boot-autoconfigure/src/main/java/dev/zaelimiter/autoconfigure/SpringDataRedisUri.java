package dev.zaelimiter.autoconfigure;

import org.springframework.boot.context.properties.bind.Binder;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * The Redis that Spring Boot's {@code spring.data.redis.*} properties name, as a {@code redis://} URI: {@code url}
 * when set, else {@code host}, {@code port}, {@code username}, {@code password}, {@code database} and
 * {@code ssl.enabled}, with Spring Boot's defaults (localhost:6379, database 0).
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
        String host = binder.bind(PREFIX + "host", String.class).orElse("localhost");
        int port = binder.bind(PREFIX + "port", Integer.class).orElse(6379);
        String username = binder.bind(PREFIX + "username", String.class).orElse(null);
        String password = binder.bind(PREFIX + "password", String.class).orElse(null);
        int database = binder.bind(PREFIX + "database", Integer.class).orElse(0);
        boolean ssl = binder.bind(PREFIX + "ssl.enabled", Boolean.class).orElse(false);
        StringBuilder uri = new StringBuilder(ssl ? "rediss://" : "redis://");
        if (password != null) {
            if (username != null) {
                uri.append(encode(username));
            }
            uri.append(':').append(encode(password)).append('@');
        }
        return uri.append(host).append(':').append(port).append('/').append(database).toString();
    }

    /** {@code uri} for a log line: any password replaced by {@code ***}. */
    static String withoutPassword(String uri) {
        return uri.replaceFirst("://([^:@/]*):[^@/]*@", "://$1:***@");
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
