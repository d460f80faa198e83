package dev.zaelimiter.autoconfigure.client;

import dev.zaelimiter.Unavailable;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * Upstreams that HTTP clients call through the limiter, under {@code zae.limiter.client.targets.<name>}; get their
 * interceptors and filter functions from {@link OutboundRateLimits}.
 */
@ConfigurationProperties("zae.limiter.client")
public class ZaeLimiterClientProperties {

    /** Upstream targets by name. */
    private Map<String, Target> targets = new LinkedHashMap<>();

    public Map<String, Target> getTargets() {
        return targets;
    }

    public void setTargets(Map<String, Target> targets) {
        this.targets = targets;
    }

    /** One upstream target. */
    public static class Target {

        /** The resource whose limits the calls consume. */
        private String resource;

        /** Whom the calls count against. */
        private Entity entity = new Entity();

        /** Tokens each call consumes, per limit name. */
        private Map<String, Long> consume = new LinkedHashMap<>();

        /** How long a call may wait for capacity, or for an upstream pause to end before it is retried once. */
        private Duration maxWait = Duration.ZERO;

        /** What an upstream Retry-After pauses: the resource for everyone, or only the calling entity. */
        private OutboundTarget.PauseScope pause = OutboundTarget.PauseScope.RESOURCE;

        /** Response statuses that pause when they carry Retry-After. */
        private Set<Integer> pauseOn = new LinkedHashSet<>(OutboundTarget.DEFAULT_PAUSE_ON);

        /** Per limit name, a response header with the tokens the call really used; the lease is adjusted to it. */
        private Map<String, String> adjustFrom = new LinkedHashMap<>();

        /** The longest pause an upstream Retry-After may cause; a longer one is cut to it. */
        private Duration maxPause = OutboundTarget.DEFAULT_MAX_PAUSE;

        /**
         * What a call does when the store cannot decide it, instead of zae.limiter.on-unavailable: block fails it,
         * allow sends it unrecorded. Unset keeps the limiter's policy.
         */
        private Unavailable onUnavailable;

        public Unavailable getOnUnavailable() {
            return onUnavailable;
        }

        public void setOnUnavailable(Unavailable onUnavailable) {
            this.onUnavailable = onUnavailable;
        }

        /** HTTP service groups (Spring Boot 4's @ImportHttpServices) whose clients call through this target. */
        private Set<String> groups = new LinkedHashSet<>();

        public String getResource() {
            return resource;
        }

        public void setResource(String resource) {
            this.resource = resource;
        }

        public Entity getEntity() {
            return entity;
        }

        public void setEntity(Entity entity) {
            this.entity = entity;
        }

        public Map<String, Long> getConsume() {
            return consume;
        }

        public void setConsume(Map<String, Long> consume) {
            this.consume = consume;
        }

        public Duration getMaxWait() {
            return maxWait;
        }

        public void setMaxWait(Duration maxWait) {
            this.maxWait = maxWait;
        }

        public OutboundTarget.PauseScope getPause() {
            return pause;
        }

        public void setPause(OutboundTarget.PauseScope pause) {
            this.pause = pause;
        }

        public Set<Integer> getPauseOn() {
            return pauseOn;
        }

        public void setPauseOn(Set<Integer> pauseOn) {
            this.pauseOn = pauseOn;
        }

        public Map<String, String> getAdjustFrom() {
            return adjustFrom;
        }

        public void setAdjustFrom(Map<String, String> adjustFrom) {
            this.adjustFrom = adjustFrom;
        }

        public Duration getMaxPause() {
            return maxPause;
        }

        public void setMaxPause(Duration maxPause) {
            this.maxPause = maxPause;
        }

        public Set<String> getGroups() {
            return groups;
        }

        public void setGroups(Set<String> groups) {
            this.groups = groups;
        }
    }

    /** Whom a target's calls count against: a fixed id, or a request attribute. */
    public static class Entity {

        /** A fixed entity id for every call. */
        private String id;

        /** The request attribute (RestClient/WebClient {@code attribute(name, value)}) holding the entity id. */
        private String attribute;

        public String getId() {
            return id;
        }

        public void setId(String id) {
            this.id = id;
        }

        public String getAttribute() {
            return attribute;
        }

        public void setAttribute(String attribute) {
            this.attribute = attribute;
        }
    }
}
