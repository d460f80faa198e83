package dev.zaelimiter.samples.gateway;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A small LLM gateway in front of a (simulated) model. Its limits are declared in {@code application.yaml}:
 * <ul>
 *   <li>an HTTP filter rule that limits {@code POST /v1/chat/**} per API key, hashed, before any JSON is parsed;</li>
 *   <li>{@link ChatService#complete}, a {@code @RateLimited} method that spends requests and tokens per minute and
 *       a monthly token quota of the caller's key, reserving an estimate up front and correcting it to the real
 *       count once the model has answered;</li>
 *   <li>an organisation whose keys cascade into its shared budget: a hard monthly quota and a soft (metered)
 *       tokens-per-minute commitment.</li>
 * </ul>
 */
@SpringBootApplication
public class LlmGatewayApplication {

    public static void main(String[] args) {
        SpringApplication.run(LlmGatewayApplication.class, args);
    }
}
