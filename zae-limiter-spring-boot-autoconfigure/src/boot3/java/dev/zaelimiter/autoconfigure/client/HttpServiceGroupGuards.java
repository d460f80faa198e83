package dev.zaelimiter.autoconfigure.client;

import dev.zaelimiter.autoconfigure.InvalidDeclarationException;
import org.springframework.context.annotation.Configuration;

/**
 * On Spring Boot 3.5, which has no HTTP service groups: a target that names groups fails startup, saying how to
 * guard the client instead.
 */
@Configuration(proxyBeanMethods = false)
class HttpServiceGroupGuards {

    HttpServiceGroupGuards(ZaeLimiterClientProperties properties) {
        properties.getTargets().forEach((name, target) -> {
            if (target.getGroups() != null && !target.getGroups().isEmpty()) {
                throw new InvalidDeclarationException("zae.limiter.client.targets." + name + ".groups",
                        "HTTP service groups (@ImportHttpServices) come with Spring Boot 4, not 3.5",
                        "Add outboundRateLimits.interceptor(\"" + name + "\") to the client's builder, or move to"
                                + " Spring Boot 4 and zae-limiter-spring-boot-starter.");
            }
        });
    }
}
