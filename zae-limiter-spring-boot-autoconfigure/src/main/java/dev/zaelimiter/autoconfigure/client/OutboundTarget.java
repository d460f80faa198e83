package dev.zaelimiter.autoconfigure.client;

import dev.zaelimiter.Unavailable;
import dev.zaelimiter.ValidationException;
import dev.zaelimiter.Names;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * One upstream an HTTP client calls through the limiter: the resource whose limits the calls consume, whom they
 * count against (a fixed entity id, or the value of a request attribute), what each call consumes, how long a call
 * may wait for capacity, what a {@code 429}/{@code 503} with {@code Retry-After} pauses, and, optionally, response
 * headers that say what a call really used. Immutable; build one with {@link #builder(String)} or declare it under
 * {@code zae.limiter.client.targets.<name>}.
 *
 * @param name        the target's name, for messages and lookups
 * @param resource    the resource whose limits the calls consume
 * @param entityId    the entity every call counts against, or {@code null} when {@code entityAttribute} gives it
 * @param entityAttribute the request attribute holding the entity id, or {@code null} for {@code entityId}
 * @param consume     tokens per limit name that each call consumes
 * @param maxWait     how long a call may wait for capacity (and for an upstream pause to end, to retry once)
 * @param pause       what an upstream {@code Retry-After} pauses
 * @param pauseOn     the response statuses that pause when they carry {@code Retry-After}
 * @param adjustFrom  per limit name, a response header holding the tokens the call really used; the lease is
 *                    adjusted to it
 * @param maxPause    the longest pause an upstream {@code Retry-After} may cause; a longer one is cut to it
 * @param onUnavailable what a call does when the store cannot decide it: {@code BLOCK} fails it, {@code ALLOW} sends
 *                    it unrecorded; {@code null} keeps the limiter's policy
 */
public record OutboundTarget(String name, String resource, String entityId, String entityAttribute,
        Map<String, Long> consume, Duration maxWait, PauseScope pause, Set<Integer> pauseOn,
        Map<String, String> adjustFrom, Duration maxPause, Unavailable onUnavailable) {

    /** What an upstream {@code Retry-After} pauses. */
    public enum PauseScope {
        /** The resource, for every entity: the provider as a whole asked for a break. */
        RESOURCE,
        /** Only the calling entity on the resource (for example one API key of a provider). */
        ENTITY
    }

    /** The statuses that pause by default. */
    public static final Set<Integer> DEFAULT_PAUSE_ON = Set.of(429, 503);

    /** The longest pause an upstream may cause by default. */
    public static final Duration DEFAULT_MAX_PAUSE = Duration.ofHours(1);

    /** A target that keeps the limiter's unavailability policy. */
    public OutboundTarget(String name, String resource, String entityId, String entityAttribute,
            Map<String, Long> consume, Duration maxWait, PauseScope pause, Set<Integer> pauseOn,
            Map<String, String> adjustFrom, Duration maxPause) {
        this(name, resource, entityId, entityAttribute, consume, maxWait, pause, pauseOn, adjustFrom, maxPause, null);
    }

    public OutboundTarget {
        Objects.requireNonNull(name, "name");
        Names.resource("resource", resource);
        entityId = entityId == null || entityId.isBlank() ? null : entityId;
        entityAttribute = entityAttribute == null || entityAttribute.isBlank() ? null : entityAttribute;
        if ((entityId == null) == (entityAttribute == null)) {
            throw new ValidationException("entity", entityId, "target '" + name + "' needs exactly one of a fixed"
                    + " entity id and a request attribute that carries it");
        }
        if (entityId != null) {
            Names.entityId("entityId", entityId);
        }
        consume = Map.copyOf(consume == null ? Map.of() : consume);
        consume.forEach((limit, amount) -> {
            Names.limitName("consume", limit);
            if (amount == null || amount < 0) {
                throw new ValidationException("consume." + limit, amount, "an amount is a whole number, 0 or more");
            }
        });
        maxWait = maxWait == null ? Duration.ZERO : maxWait;
        if (maxWait.isNegative()) {
            throw new ValidationException("maxWait", maxWait, "a wait cannot be negative");
        }
        pause = pause == null ? PauseScope.RESOURCE : pause;
        pauseOn = Set.copyOf(pauseOn == null ? DEFAULT_PAUSE_ON : pauseOn);
        adjustFrom = Map.copyOf(adjustFrom == null ? Map.of() : adjustFrom);
        adjustFrom.keySet().forEach(limit -> Names.limitName("adjustFrom", limit));
        maxPause = maxPause == null ? DEFAULT_MAX_PAUSE : maxPause;
        if (maxPause.isNegative() || maxPause.isZero()) {
            throw new ValidationException("maxPause", maxPause, "the longest upstream pause must be more than zero");
        }
    }

    /** A builder for a target named {@code name}. */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** Builds an {@link OutboundTarget}; every call returns this builder. */
    public static final class Builder {

        private final String name;
        private String resource;
        private String entityId;
        private String entityAttribute;
        private final Map<String, Long> consume = new LinkedHashMap<>();
        private Duration maxWait = Duration.ZERO;
        private PauseScope pause = PauseScope.RESOURCE;
        private Set<Integer> pauseOn = DEFAULT_PAUSE_ON;
        private final Map<String, String> adjustFrom = new LinkedHashMap<>();
        private Duration maxPause = DEFAULT_MAX_PAUSE;
        private Unavailable onUnavailable;

        private Builder(String name) {
            this.name = name;
        }

        public Builder resource(String resource) {
            this.resource = resource;
            return this;
        }

        /** Every call counts against {@code entityId}. */
        public Builder entity(String entityId) {
            this.entityId = entityId;
            this.entityAttribute = null;
            return this;
        }

        /** Each call counts against the value of its request attribute {@code attribute}. */
        public Builder entityFromAttribute(String attribute) {
            this.entityAttribute = attribute;
            this.entityId = null;
            return this;
        }

        public Builder consume(String limit, long amount) {
            consume.put(limit, amount);
            return this;
        }

        public Builder maxWait(Duration maxWait) {
            this.maxWait = maxWait;
            return this;
        }

        public Builder pause(PauseScope pause) {
            this.pause = pause;
            return this;
        }

        public Builder pauseOn(Set<Integer> statuses) {
            this.pauseOn = statuses;
            return this;
        }

        /** Adjusts the lease's {@code limit} to the number in response header {@code header}. */
        public Builder adjustFrom(String limit, String header) {
            adjustFrom.put(limit, header);
            return this;
        }

        /** Cuts an upstream {@code Retry-After} longer than {@code maxPause} to it. */
        public Builder maxPause(Duration maxPause) {
            this.maxPause = maxPause;
            return this;
        }

        /**
         * What a call does when the store cannot decide it, instead of the limiter's policy: {@code BLOCK} fails it
         * with {@link dev.zaelimiter.StoreUnavailableException}, {@code ALLOW} sends it unrecorded; {@code null}
         * keeps the limiter's.
         */
        public Builder onUnavailable(Unavailable onUnavailable) {
            this.onUnavailable = onUnavailable;
            return this;
        }

        /** @throws ValidationException naming what is wrong */
        public OutboundTarget build() {
            return new OutboundTarget(name, resource, entityId, entityAttribute, consume, maxWait, pause, pauseOn,
                    adjustFrom, maxPause, onUnavailable);
        }
    }
}
