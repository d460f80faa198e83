package dev.zaelimiter.samples.gateway;

import org.springframework.stereotype.Component;

import java.util.Map;
import java.util.Optional;

/**
 * The gateway's API keys and the key id each one stands for. A real gateway would look keys up in a database; the
 * key ids are the entities whose limits {@code application.yaml} declares, and never secrets.
 */
@Component
public class ApiKeys {

    private final Map<String, String> keyIds = Map.of(
            "sk-acme-web-1", "key-acme-web",        // Acme's web app, a child of org-acme
            "sk-acme-batch-1", "key-acme-batch",    // Acme's batch jobs, a child of org-acme
            "sk-hobby-1", "key-hobby");             // a key of its own, with the resource's default limits

    /** The key id of {@code apiKey}, or empty when the gateway does not know it. */
    public Optional<String> keyId(String apiKey) {
        return Optional.ofNullable(keyIds.get(apiKey));
    }
}
