package dev.zaelimiter.autoconfigure;

import org.springframework.http.client.ClientHttpResponse;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.DefaultResponseErrorHandler;
import org.springframework.web.client.RestTemplate;
import org.springframework.web.util.DefaultUriBuilderFactory;

/**
 * A {@link RestTemplate} on a test's own server, at relative paths, that hands back error statuses instead of
 * throwing (as Spring Boot's {@code TestRestTemplate} does, whose package differs between the Spring Boot lines).
 */
public final class LocalHttp {

    private LocalHttp() {
    }

    public static RestTemplate to(int port) {
        RestTemplate http = new RestTemplate(new JdkClientHttpRequestFactory());
        DefaultUriBuilderFactory uris = new DefaultUriBuilderFactory("http://localhost:" + port);
        uris.setEncodingMode(DefaultUriBuilderFactory.EncodingMode.URI_COMPONENT);
        http.setUriTemplateHandler(uris);
        http.setErrorHandler(new DefaultResponseErrorHandler() {
            @Override
            public boolean hasError(ClientHttpResponse response) {
                return false;
            }
        });
        return http;
    }
}
