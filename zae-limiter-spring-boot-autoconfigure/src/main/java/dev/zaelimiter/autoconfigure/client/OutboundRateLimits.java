package dev.zaelimiter.autoconfigure.client;

import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.autoconfigure.InvalidDeclarationException;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The targets of {@code zae.limiter.client.targets}, checked at startup, and the {@code RestClient} and
 * {@code RestTemplate} interceptors that limit calls to them ({@link ReactiveOutboundRateLimits} has the
 * {@code WebClient} filter functions):
 *
 * <pre>{@code
 * RestClient openai = RestClient.builder().baseUrl(url)
 *         .requestInterceptor(outbound.interceptor("openai")).build();
 * }</pre>
 */
public class OutboundRateLimits {

    private final RateLimiter limiter;
    private final Map<String, OutboundTarget> targets;

    /** @throws InvalidDeclarationException when a target is invalid, naming the property */
    public OutboundRateLimits(RateLimiter limiter, ZaeLimiterClientProperties properties) {
        this.limiter = Objects.requireNonNull(limiter, "limiter");
        Map<String, OutboundTarget> compiled = new LinkedHashMap<>();
        properties.getTargets().forEach((name, target) -> compiled.put(name, compile(name, target)));
        this.targets = Map.copyOf(compiled);
    }

    private static OutboundTarget compile(String name, ZaeLimiterClientProperties.Target target) {
        String path = "zae.limiter.client.targets." + name;
        ZaeLimiterClientProperties.Entity entity = target.getEntity() == null
                ? new ZaeLimiterClientProperties.Entity() : target.getEntity();
        return InvalidDeclarationException.check(e -> switch (e.field()) {
            case "entityId" -> path + ".entity";
            default -> e.field().startsWith("consume") ? path + ".consume"
                    : InvalidDeclarationException.property(path, e.field());
        }, () -> new OutboundTarget(name, target.getResource(), entity.getId(), entity.getAttribute(),
                target.getConsume(), target.getMaxWait(), target.getPause(),
                target.getPauseOn() == null ? null : Set.copyOf(target.getPauseOn()), target.getAdjustFrom(),
                target.getMaxPause(), target.getOnUnavailable()));
    }

    /** The declared targets, by name. */
    public Map<String, OutboundTarget> targets() {
        return targets;
    }

    /** The declared target {@code name}. */
    public OutboundTarget target(String name) {
        OutboundTarget target = targets.get(name);
        if (target == null) {
            throw new IllegalArgumentException("no target '" + name + "' under zae.limiter.client.targets; declared: "
                    + targets.keySet());
        }
        return target;
    }

    /** An interceptor for {@code RestClient} or {@code RestTemplate} calls to the declared target {@code name}. */
    public RateLimitingClientHttpRequestInterceptor interceptor(String name) {
        return new RateLimitingClientHttpRequestInterceptor(limiter, target(name));
    }

    /** An interceptor for calls to {@code target}, declared in code. */
    public RateLimitingClientHttpRequestInterceptor interceptor(OutboundTarget target) {
        return new RateLimitingClientHttpRequestInterceptor(limiter, target);
    }
}
