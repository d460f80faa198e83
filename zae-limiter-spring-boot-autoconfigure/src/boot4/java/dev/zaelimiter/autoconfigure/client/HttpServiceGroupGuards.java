package dev.zaelimiter.autoconfigure.client;

import dev.zaelimiter.autoconfigure.InvalidDeclarationException;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.client.support.RestClientHttpServiceGroupConfigurer;
import org.springframework.web.reactive.function.client.support.WebClientHttpServiceGroupConfigurer;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Guards the clients of Spring's HTTP service groups ({@code @ImportHttpServices}) that a target names in
 * {@code zae.limiter.client.targets.<name>.groups}: a {@code RestClient} group gets the target's interceptor, a
 * {@code WebClient} group its filter function, as if written on the group's client builder. A named group that the
 * application does not have fails startup.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = "org.springframework.web.service.registry.HttpServiceGroupConfigurer")
class HttpServiceGroupGuards {

    /** The groups the configurers were shown, to check the declared names against. */
    private final Set<String> seen = ConcurrentHashMap.newKeySet();

    @Bean
    RestClientHttpServiceGroupConfigurer zaeLimiterRestClientGroups(OutboundRateLimits outbound,
            ZaeLimiterClientProperties properties) {
        return groups -> groups.forEachClient((group, builder) -> {
            seen.add(group.name());
            targetsOf(properties, group.name())
                    .forEach(target -> builder.requestInterceptor(outbound.interceptor(target)));
        });
    }

    @Bean
    SmartInitializingSingleton zaeLimiterHttpServiceGroupsCheck(ZaeLimiterClientProperties properties) {
        return () -> properties.getTargets().forEach((name, target) -> {
            for (String group : target.getGroups()) {
                if (!seen.contains(group)) {
                    throw new InvalidDeclarationException("zae.limiter.client.targets." + name + ".groups",
                            "the application has no HTTP service group '" + group + "' (known: " + seen + ")",
                            "Name a group of the application's @ImportHttpServices, or register it.");
                }
            }
        });
    }

    /** The {@code WebClient} groups, when WebFlux's client is there. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.web.reactive.function.client.support"
            + ".WebClientHttpServiceGroupConfigurer")
    @ConditionalOnBean(ReactiveOutboundRateLimits.class)
    static class WebClientGroups {

        @Bean
        WebClientHttpServiceGroupConfigurer zaeLimiterWebClientGroups(ReactiveOutboundRateLimits outbound,
                ZaeLimiterClientProperties properties, HttpServiceGroupGuards guards) {
            return groups -> groups.forEachClient((group, builder) -> {
                guards.seen.add(group.name());
                targetsOf(properties, group.name()).forEach(target -> builder.filter(outbound.filter(target)));
            });
        }
    }

    /** The targets that name {@code group}, in declaration order. */
    static List<String> targetsOf(ZaeLimiterClientProperties properties, String group) {
        List<String> names = new ArrayList<>();
        for (Map.Entry<String, ZaeLimiterClientProperties.Target> target : properties.getTargets().entrySet()) {
            if (target.getValue().getGroups().contains(group)) {
                names.add(target.getKey());
            }
        }
        return names;
    }
}
